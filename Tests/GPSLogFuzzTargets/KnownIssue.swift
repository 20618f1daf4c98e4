// SPDX-License-Identifier: MIT
import GPSLogStore
import GPSLogXML

#if canImport(Glibc)
    import Glibc
#endif

/// Bugs fuzzing found in files this branch must not change (their owner is changing them), reported and with a
/// regression fixture each (`Tests/Fixtures/fuzz/<target>/known-issues/`, replayed by a disabled test). The targets
/// skip the inputs that would hit them, so a fuzz run goes on finding new things. Remove an entry when its fix lands.
enum KnownIssue {
    /// GPXFieldReader turns `<sat>` into an Int with `Int(Double)`, which traps for 1e19 or more (or NaN is refused
    /// earlier, but 9.3e18 is not): any number of satellites at or beyond Int's range crashes `import` and `convert`.
    static func skipsGPX(path: String) -> Bool {
        let finder = SatelliteFinder()
        let parser = XMLSAXParser(file: path, handler: finder)
        try? parser.parseFile()
        return finder.overflows
    }

    /// SessionXMLImporter hands the store what it read without checking it against the store's rules, so the store
    /// refuses it with a `StoreError` that names the rule but not the file or the line, as an `ImportError` would: an
    /// entry (`IsHeadingChanged="true"` without `HeadingTimeStamp`, `Speed="-1"`...: `invalidEntry`), or a session
    /// whose `Name` is blank (`invalidSession`, "the name is empty"; a blank GPX name now names the session after the
    /// file).
    static func excusesSessionXML(_ error: any Error) -> Bool {
        switch error as? StoreError {
        case .invalidEntry, .invalidSession: true
        default: false
        }
    }
}

/// Collects the text of every `sat` element, as the GPX reader does, and notes one that `Int(_: Double)` cannot take.
private final class SatelliteFinder: XMLSAXHandler {
    var overflows = false
    private var depth = 0
    private var text: [UInt8]?

    func startElement(_ name: XMLName, namespace: XMLName, attributes: XMLAttributes) throws {
        if text == nil, name.equals("sat") {
            text = []
            depth = 0
        } else if text != nil {
            depth += 1
        }
    }

    func endElement(_ name: XMLName, namespace: XMLName) throws {
        guard let collected = text else { return }
        if depth > 0 {
            depth -= 1
            return
        }
        text = nil
        let value = collected.withUnsafeBufferPointer { buffer -> Double in
            var digits = Array(buffer) + [0]
            return digits.withUnsafeMutableBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { strtod($0, nil) }
            }
        }
        if value.isFinite, value >= 9.2e18 || value <= -9.2e18 { overflows = true }
    }

    func characters(_ chunk: UnsafeBufferPointer<UInt8>) {
        text?.append(contentsOf: chunk)
    }
}
