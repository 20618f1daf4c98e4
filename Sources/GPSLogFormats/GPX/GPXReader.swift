// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogXML

/// Reads GPX 1.0 and 1.1 with libxml2's SAX2 push parser (`XMLSAXParser`: no DTDs, no entities, no network; a GPX
/// of millions of points streams through with no per-node allocation) and reports its waypoints, tracks, routes
/// and points to a `GPXVisitor`. The one place GPX elements are mapped to fields: `import` and `convert` build
/// sessions from what it reports, `replay:` fixes (`GPXFixReader`).
public enum GPXReader {
    /// Parses the file at `path`, calling `visitor` for each waypoint, track and point, in document order.
    /// - Throws: `ImportError` for a file that is not GPX or a value that is not valid (naming the line), `XMLError`
    ///   for a malformed document, or what the visitor threw.
    public static func read(_ path: String, into visitor: any GPXVisitor) throws {
        let handler = GPXSAXHandler(path: path, visitor: visitor)
        let parser = XMLSAXParser(file: path, handler: handler)
        handler.parser = parser
        try parser.parseFile()
    }
}

/// The parser calls this class; the work is done by `GPXFieldReader`, a struct it holds.
final class GPXSAXHandler: XMLSAXHandler {
    // Why a pointer: every access to a class's stored `var` is checked for exclusivity at run time, a call into the
    // runtime per SAX event (about 10 events per track point; profiled: 13 % of a GPX -> GeoJSON convert). The
    // reader lives behind a `let` pointer this class owns, and its methods are `mutating`, so the compiler checks
    // its accesses statically instead. Sound because libxml2 calls one callback at a time, on the parsing thread.
    private let reader: UnsafeMutablePointer<GPXFieldReader>
    private let visitor: any GPXVisitor

    init(path: String, visitor: any GPXVisitor) {
        self.visitor = visitor
        reader = .allocate(capacity: 1)
        reader.initialize(to: GPXFieldReader(path: path))
    }

    deinit {
        reader.deinitialize(count: 1)
        reader.deallocate()
    }

    /// The parser (for line numbers in errors).
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
}
