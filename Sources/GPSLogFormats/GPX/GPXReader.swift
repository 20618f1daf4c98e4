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
        let handler = SAXReaderHandler(GPXFieldReader(path: path), visitor: visitor)
        let parser = XMLSAXParser(file: path, handler: handler)
        handler.parser = parser
        try parser.parseFile()
    }
}
