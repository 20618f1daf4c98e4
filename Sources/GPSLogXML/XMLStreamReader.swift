// SPDX-License-Identifier: MIT
import CLibXML2
import Foundation
import GPSLogSystem

/// A streaming XML reader over libxml2's `xmlTextReader`: one node at a time, memory flat whatever the file size.
///
/// Hostile input is refused: no network access, no DTD loading, no entity substitution (so no XXE and no
/// billion-laughs expansion); a document that declares entities fails with an error naming the line; an element with
/// more than 1,000 attributes or namespace declarations is refused before libxml2 reads it (see
/// `XMLAttributeCounter`).
public final class XMLStreamReader {
    private let handle: xmlTextReaderPtr
    private let collector: XMLErrorCollector
    // For in-memory documents: xmlReaderForMemory does not copy, so the reader keeps its own copy.
    private var memory: UnsafeMutableBufferPointer<CChar>?
    // For files: the descriptor libxml2 reads through, whose bytes are counted first.
    private var source: XMLFileSource?
    /// The file being read (for messages).
    public let file: String

    /// Node kinds (libxml2's `xmlReaderTypes`).
    public enum NodeType: Int32, Sendable {
        case none = 0
        case element = 1
        case attribute = 2
        case text = 3
        case cdata = 4
        case entityReference = 5
        case entity = 6
        case processingInstruction = 7
        case comment = 8
        case document = 9
        case documentType = 10
        case documentFragment = 11
        case notation = 12
        case whitespace = 13
        case significantWhitespace = 14
        case endElement = 15
        case endEntity = 16
        case xmlDeclaration = 17
    }

    /// Parser options: no network, no entity substitution, no DTD loading, compact text nodes.
    static let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_COMPACT.rawValue | XML_PARSE_NOCDATA.rawValue)

    /// Opens a file for streaming.
    /// - Throws: `XMLError` naming the file when it cannot be opened.
    public init(path: String) throws {
        file = path
        collector = XMLErrorCollector(file: path)
        let source: XMLFileSource
        do {
            source = XMLFileSource(fd: try systemCall { open(path, O_RDONLY | O_CLOEXEC) })
        } catch {
            throw XMLError(file: path, line: 0, column: 0, message: "cannot open the file for reading: \(error.reason)")
        }
        guard
            let reader = xmlReaderForIO(
                XMLFileSource.read, XMLFileSource.close, Unmanaged.passUnretained(source).toOpaque(), path, nil,
                XMLStreamReader.options)
        else {
            throw XMLError(file: path, line: 0, column: 0, message: "cannot create an XML reader")
        }
        self.source = source
        handle = reader
        xmlTextReaderSetStructuredErrorHandler(handle, XMLErrorCollector.handler, collector.context)
    }

    /// Parses an in-memory document (tests, small payloads).
    public init(bytes: [UInt8], name: String = "(memory)") throws {
        file = name
        collector = XMLErrorCollector(file: name)
        let copy = UnsafeMutableBufferPointer<CChar>.allocate(capacity: max(bytes.count, 1))
        for (i, b) in bytes.enumerated() { copy[i] = CChar(bitPattern: b) }
        guard let reader = xmlReaderForMemory(copy.baseAddress, Int32(bytes.count), name, nil, XMLStreamReader.options)
        else {
            copy.deallocate()
            throw XMLError(file: name, line: 0, column: 0, message: "cannot create an XML reader")
        }
        memory = copy
        handle = reader
        xmlTextReaderSetStructuredErrorHandler(handle, XMLErrorCollector.handler, collector.context)
    }

    deinit {
        xmlFreeTextReader(handle)
        memory?.deallocate()
    }

    /// Advances to the next node. Returns false at the end of the document.
    /// - Throws: `XMLError` with libxml2's message, file and line for malformed input or entity declarations.
    public func read() throws -> Bool {
        let rc = xmlTextReaderRead(handle)
        if source?.refused == true {
            throw XMLError(
                file: file, line: Int(xmlTextReaderGetParserLineNumber(handle)), column: 0,
                message: XMLAttributeCounter.refusal)
        }
        if rc == 1 {
            if nodeType == .documentType || nodeType == .entity || nodeType == .entityReference {
                throw XMLError(
                    file: file, line: line, column: 0,
                    message: "DTDs and entities are not accepted (they enable XXE and billion-laughs attacks)")
            }
            return true
        }
        if rc == 0 && collector.errors.isEmpty { return false }
        throw collector.error(or: "reading \(file)")
    }

    /// The kind of the current node (`.none` for a kind not listed).
    public var nodeType: NodeType { NodeType(rawValue: xmlTextReaderNodeType(handle)) ?? .none }
    /// Local name of the current node.
    public var localName: String { string(xmlTextReaderConstLocalName(handle)) ?? "" }
    /// Namespace URI of the current node, nil when none.
    public var namespaceURI: String? { string(xmlTextReaderConstNamespaceUri(handle)) }
    /// Text value of the current text node.
    public var value: String? { string(xmlTextReaderConstValue(handle)) }
    /// True for `<a/>`.
    public var isEmptyElement: Bool { xmlTextReaderIsEmptyElement(handle) == 1 }
    /// Depth of the current node.
    public var depth: Int { Int(xmlTextReaderDepth(handle)) }
    /// Line of the current node, 1-based: where its start tag is (the parser itself may have read further ahead).
    public var line: Int {
        if let node = xmlTextReaderCurrentNode(handle) {
            let n = xmlGetLineNo(node)
            if n > 0 { return Int(n) }
        }
        return Int(xmlTextReaderGetParserLineNumber(handle))
    }

    /// The value of an attribute of the current element, by local name (no namespace).
    public func attribute(_ name: String) -> String? {
        guard let raw = xmlTextReaderGetAttribute(handle, name) else { return nil }
        defer { CLibXML2_free(raw) }
        return String(cString: raw)
    }

    /// Reads the text content of the current element up to its end tag (nil for an empty element), keeping at most
    /// `limit` UTF-8 bytes of it (a hostile element's text costs no more than a real one's).
    public func readElementText(limit: Int = .max) throws -> String {
        if isEmptyElement { return "" }
        var text = ""
        let startDepth = depth
        while try read() {
            switch nodeType {
            case .text, .cdata, .significantWhitespace, .whitespace:
                let room = limit - text.utf8.count
                guard room > 0, let value else { continue }
                text += value.utf8.count <= room ? value : String(decoding: value.utf8.prefix(room), as: UTF8.self)
            case .endElement where depth == startDepth: return text
            default: continue
            }
        }
        return text
    }

    private func string(_ p: UnsafePointer<xmlChar>?) -> String? {
        p.map { String(cString: $0) }
    }
}

@available(*, unavailable)
extension XMLStreamReader: Sendable {}

/// A file libxml2's reader reads through (`xmlReaderForIO`), each piece counted by an `XMLAttributeCounter` before
/// libxml2 gets it. The descriptor is closed when this goes (after the reader, which holds it unretained).
private final class XMLFileSource {
    let fd: Int32
    var counter = XMLAttributeCounter()
    /// A start tag had too many attributes: libxml2 was told the read failed.
    var refused = false

    init(fd: Int32) { self.fd = fd }
    deinit { _ = Glibc.close(fd) }

    static let read: xmlInputReadCallback = { context, buffer, length in
        guard let context, let buffer else { return -1 }
        let me = Unmanaged<XMLFileSource>.fromOpaque(context).takeUnretainedValue()
        if me.refused { return -1 }
        let n: Int
        do {
            n = try systemCall { Glibc.read(me.fd, buffer, Int(length)) }
        } catch {
            return -1
        }
        if me.counter.scan(UnsafeRawBufferPointer(start: buffer, count: n)) != nil {
            me.refused = true
            return -1
        }
        return Int32(n)
    }

    static let close: xmlInputCloseCallback = { _ in 0 }
}
