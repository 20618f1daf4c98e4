// SPDX-License-Identifier: MIT
import CLibXML2

/// A streaming XML writer over libxml2's `xmlTextWriter`: escaping is libxml2's, output goes out in chunks, and
/// memory stays flat whatever the document size.
public final class XMLStreamWriter {
    private let handle: xmlTextWriterPtr
    private let memory: xmlBufferPtr?
    /// Where the output goes (for messages).
    public let destination: String

    /// Writes to an open file descriptor (the caller owns and closes it; the writer flushes in `finish()`).
    public init(fileDescriptor: Int32, destination: String, indent: Bool = true) throws {
        self.destination = destination
        guard let out = xmlOutputBufferCreateFd(fileDescriptor, nil), let writer = xmlNewTextWriter(out) else {
            throw lastGlobalError(operation: "creating an XML writer for \(destination)", file: destination)
        }
        handle = writer
        memory = nil
        try configure(indent: indent)
    }

    /// Writes into memory; read the result with `contents` after `finish()`.
    public init(indent: Bool = true) throws {
        destination = "(memory)"
        guard let buffer = xmlBufferCreate() else {
            throw XMLError(file: nil, line: 0, column: 0, message: "out of memory")
        }
        guard let writer = xmlNewTextWriterMemory(buffer, 0) else {
            xmlBufferFree(buffer)
            throw lastGlobalError(operation: "creating an XML writer", file: nil)
        }
        handle = writer
        memory = buffer
        try configure(indent: indent)
    }

    deinit {
        xmlFreeTextWriter(handle)
        if let memory { xmlBufferFree(memory) }
    }

    private func configure(indent: Bool) throws {
        if indent {
            try check(xmlTextWriterSetIndent(handle, 1), "setting indentation")
            try check(xmlTextWriterSetIndentString(handle, "  "), "setting indentation")
        }
    }

    /// The one funnel from libxml2's writer status (negative on failure) to a Swift error.
    @inline(__always) private func check(_ rc: Int32, _ operation: @autoclosure () -> String) throws {
        if rc < 0 { throw lastGlobalError(operation: "\(operation()) in \(destination)", file: destination) }
    }

    /// `<?xml version="1.0" encoding="UTF-8"?>`
    public func startDocument() throws {
        try check(xmlTextWriterStartDocument(handle, "1.0", "UTF-8", nil), "starting the document")
    }

    /// Opens an element; `name` may carry a prefix (`gpxtpx:speed`).
    public func startElement(_ name: String) throws {
        try check(xmlTextWriterStartElement(handle, name), "starting <\(name)>")
    }

    /// Writes an attribute of the element just opened (escaped by libxml2).
    public func attribute(_ name: String, _ value: String) throws {
        try check(
            xmlTextWriterWriteAttribute(handle, name, XMLStreamWriter.xmlSafe(value)), "writing attribute \(name)")
    }

    /// Writes escaped text content.
    public func text(_ value: String) throws {
        try check(xmlTextWriterWriteString(handle, XMLStreamWriter.xmlSafe(value)), "writing text")
    }

    /// XML 1.0 cannot carry most control characters at all, not even as character references: they become U+FFFD
    /// so the document stays well-formed (tab, line feed and carriage return are kept).
    public static func xmlSafe(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: { !isAllowed($0) }) else { return value }
        var out = String.UnicodeScalarView()
        for scalar in value.unicodeScalars { out.append(isAllowed(scalar) ? scalar : "\u{FFFD}") }
        return String(out)
    }

    private static func isAllowed(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    /// Closes the innermost open element.
    public func endElement() throws {
        try check(xmlTextWriterEndElement(handle), "ending an element")
    }

    /// `<name>text</name>`.
    public func element(_ name: String, _ value: String) throws {
        try check(xmlTextWriterWriteElement(handle, name, XMLStreamWriter.xmlSafe(value)), "writing <\(name)>")
    }

    /// Writes bytes as they are, unescaped: only for markup the caller built from numbers and times, which need no
    /// escaping (the GPX writer's track points). After raw markup the writer does not indent the next end tag:
    /// the caller writes that indentation itself.
    public func raw(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        let rc = bytes.withUnsafeBufferPointer { xmlTextWriterWriteRawLen(handle, $0.baseAddress, Int32($0.count)) }
        try check(rc, "writing markup")
    }

    /// Writes a comment.
    public func comment(_ value: String) throws {
        try check(xmlTextWriterWriteComment(handle, value), "writing a comment")
    }

    /// Closes every open element and flushes the output.
    public func finish() throws {
        try check(xmlTextWriterEndDocument(handle), "ending the document")
        try check(xmlTextWriterFlush(handle), "flushing")
    }

    /// The document written so far, for writers created with `init(indent:)`.
    public var contents: String {
        guard let memory, let content = xmlBufferContent(memory) else { return "" }
        return String(cString: content)
    }
}

@available(*, unavailable)
extension XMLStreamWriter: Sendable {}
