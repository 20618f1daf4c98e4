// SPDX-License-Identifier: MIT
import Foundation

/// A one-line progress indicator on stderr, drawn only when stderr is a terminal and at most five times a second,
/// so it costs nothing in pipes and scripts.
final class ProgressBar {
    let label: String
    /// What 100 % is; may be set once it is known.
    var total: Int?
    private var count = 0
    private var lastDraw = Date.distantPast
    private let enabled = isatty(STDERR_FILENO) == 1
    private var drawn = false

    init(label: String, total: Int? = nil) {
        self.label = label
        self.total = total
    }

    /// Moves to `done` of the total.
    func advance(to done: Int) { advance(by: done - count) }

    func advance(by n: Int = 1) {
        count += n
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.2 else { return }
        lastDraw = now
        var line = "\r\u{1B}[K\(label): \(count.formatted()) \(count == 1 ? "entry" : "entries")"
        if let total, total > 0 {
            let fraction = min(1, Double(count) / Double(total))
            let width = 30
            let filled = Int(fraction * Double(width))
            line =
                "\r\u{1B}[K\(label) [\(String(repeating: "#", count: filled))\(String(repeating: " ", count: width - filled))] \(Int(fraction * 100))%"
        }
        FileHandle.standardError.write(Data(line.utf8))
        drawn = true
    }

    /// Clears the line (safe to call twice).
    func finish() {
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        drawn = false
    }
}
