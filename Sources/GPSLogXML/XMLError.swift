// SPDX-License-Identifier: MIT
import CLibXML2
import Foundation

/// An error reported by libxml2, with its own message and where it happened.
public struct XMLError: Error, LocalizedError, Equatable, CustomStringConvertible {
    /// The file being read or validated, when known.
    public var file: String?
    /// 1-based line, 0 when unknown.
    public var line: Int
    /// 1-based column, 0 when unknown.
    public var column: Int
    /// libxml2's message, trimmed.
    public var message: String
    /// libxml2's error code (`xmlParserErrors`).
    public var code: Int32

    /// Creates an error from its parts; `code` 0 when libxml2 gave none.
    public init(file: String?, line: Int, column: Int, message: String, code: Int32 = 0) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.code = code
    }

    /// Builds an error from libxml2's structured error record.
    init(_ error: UnsafePointer<xmlError>, fallbackFile: String?) {
        let e = error.pointee
        file = e.file.map { String(cString: $0) } ?? fallbackFile
        line = Int(e.line)
        column = Int(e.int2)
        message =
            e.message.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines)
            ?? "unknown XML error"
        code = e.code
    }

    /// `file:line:column: message`, leaving out what is unknown ("XML" for an unknown file).
    public var description: String {
        var place = file ?? "XML"
        if line > 0 { place += ":\(line)" }
        if column > 0 { place += ":\(column)" }
        return "\(place): \(message)"
    }

    /// The same words as `description`: where, then libxml2's message.
    public var errorDescription: String? { description }
}

/// Collects libxml2's structured errors for one reader, writer or validator. libxml2's generic error callback is
/// variadic, which Swift cannot implement, so every handle here installs this structured handler instead.
final class XMLErrorCollector {
    var errors: [XMLError] = []
    let file: String?
    init(file: String?) { self.file = file }

    /// The C callback; `context` is an unretained pointer to the collector, which its owner keeps alive.
    static let handler: xmlStructuredErrorFunc = { context, error in
        guard let context, let error else { return }
        let collector = Unmanaged<XMLErrorCollector>.fromOpaque(context).takeUnretainedValue()
        // Warnings (level 1) are not failures.
        if error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue {
            collector.errors.append(XMLError(UnsafePointer(error), fallbackFile: collector.file))
        }
    }

    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// The first error collected, or a generic one naming the failed call.
    func error(or operation: String) -> XMLError {
        errors.first ?? lastGlobalError(operation: operation, file: file)
    }
}

/// libxml2's last error of this thread, for calls that report through it rather than a handler.
func lastGlobalError(operation: String, file: String?) -> XMLError {
    if let last = xmlGetLastError() {
        return XMLError(UnsafePointer(last), fallbackFile: file)
    }
    return XMLError(file: file, line: 0, column: 0, message: "\(operation) failed")
}
