// SPDX-License-Identifier: MIT

/// The files one export writes. Output 0 is the destination itself; a format that splits its output (Overland
/// batches) asks for more, which are numbered siblings (`track.json`, `track-0002.json`, ...) or, on standard
/// output, the same stream again.
public final class TrackOutputs {
    /// The destination, or "-" for standard output.
    public let path: String
    /// The files opened so far, in order.
    public private(set) var paths: [String] = []
    private var standardOutput: OutputFile?

    /// Outputs for `path` (`-` for standard output); nothing is opened yet.
    public init(path: String) { self.path = path }

    /// Opens output `index` (numbered from 0). Each is an `OutputFile`: it appears whole at `commit()`, or not at all.
    public func open(_ index: Int) throws -> OutputFile {
        if path == "-" {
            if let standardOutput { return standardOutput }
            let out = try OutputFile(path: "-")
            standardOutput = out
            return out
        }
        let numbered = Self.numbered(path, index)
        paths.append(numbered)
        return try OutputFile(path: numbered)
    }

    /// `track.json` for the first output, then `track-0002.json`, `track-0003.json`, ...
    static func numbered(_ path: String, _ index: Int) -> String {
        guard index > 0 else { return path }
        let n = String(index + 1)
        let suffix = "-" + String(repeating: "0", count: max(0, 4 - n.count)) + n
        if let dot = path.lastIndex(of: "."), !path[dot...].contains("/") {
            return String(path[..<dot]) + suffix + String(path[dot...])
        }
        return path + suffix
    }
}

@available(*, unavailable)
extension TrackOutputs: Sendable {}
