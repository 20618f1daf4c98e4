// SPDX-License-Identifier: MIT
import GPSLogXML

/// A format's element-by-element reading (GPX's, KML's, TCX's): a struct that `SAXReaderHandler` holds, told each
/// event with the visitor to report to.
protocol SAXFieldReader {
    associatedtype Visitor
    /// The parser (for line numbers in errors); unowned, set once the parser exists.
    var parser: XMLSAXParser? { get set }
    mutating func startElement(
        _ element: XMLName, namespace: XMLName, attributes: XMLAttributes, visitor: Visitor) throws
    mutating func characters(_ chunk: UnsafeBufferPointer<UInt8>)
    mutating func endElement(_ element: XMLName, namespace: XMLName, visitor: Visitor) throws
}

/// The parser calls this class; the work is done by a `SAXFieldReader`, a struct it holds behind a pointer. Why a
/// pointer: every access to a class's stored `var` is checked for exclusivity at run time, a call into the runtime
/// per SAX event (about 10 events per GPX track point; profiled: 13 % of a GPX -> GeoJSON convert). The reader lives
/// behind a `let` pointer this class owns, and its methods are `mutating`, so the compiler checks its accesses
/// statically instead. Sound because libxml2 calls one callback at a time, on the parsing thread. The visitor is
/// handed down with each event from this class's `let`: read out of the struct, it would be retained and released
/// around every call.
final class SAXReaderHandler<Reader: SAXFieldReader>: XMLSAXHandler {
    private let reader: UnsafeMutablePointer<Reader>
    private let visitor: Reader.Visitor

    init(_ reader: Reader, visitor: Reader.Visitor) {
        self.visitor = visitor
        self.reader = .allocate(capacity: 1)
        self.reader.initialize(to: reader)
    }

    deinit {
        reader.deinitialize(count: 1)
        reader.deallocate()
    }

    var parser: XMLSAXParser? {
        get { reader.pointee.parser }
        set { reader.pointee.parser = newValue }
    }

    func startElement(_ element: XMLName, namespace: XMLName, attributes: XMLAttributes) throws {
        try reader.pointee.startElement(element, namespace: namespace, attributes: attributes, visitor: visitor)
    }

    func characters(_ chunk: UnsafeBufferPointer<UInt8>) { reader.pointee.characters(chunk) }

    func endElement(_ element: XMLName, namespace: XMLName) throws {
        try reader.pointee.endElement(element, namespace: namespace, visitor: visitor)
    }

    /// Parses a document named `name` with `reader`, reporting to `visitor`: `run` starts the parser (on a file, or
    /// on pieces). libxml2's errors become `ImportError.malformed` naming `name` and the line.
    static func parse(
        _ name: String, reader: Reader, visitor: Reader.Visitor, _ run: (XMLSAXParser) throws -> Void
    ) throws {
        let handler = SAXReaderHandler(reader, visitor: visitor)
        let parser = XMLSAXParser(file: name, handler: handler)
        handler.parser = parser
        do {
            try run(parser)
        } catch let error as XMLError {
            throw ImportError.malformed(file: name, line: error.line, reason: error.message)
        }
    }
}

/// How deep the KML and TCX readers let elements nest. libxml2's push parser sets no limit of its own (100,000
/// nested `<Folder>`s parse), and the KML reader keeps a frame per Folder: a depth bomb is refused here. Real files
/// nest a few levels (Google Earth's My Places, GPSBabel's folders: under 20).
enum XMLDepth {
    static let limit = 256

    static func refusal(file: String, line: Int) -> ImportError {
        ImportError.malformed(file: file, line: line, reason: "elements nested deeper than \(limit) levels")
    }
}
