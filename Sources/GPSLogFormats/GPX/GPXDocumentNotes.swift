// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogXML

/// What a GPX file in the wild does that the schema does not say, and what the reader tells the visitor about it:
/// a root `<gpx>` with no namespace or one that is not GPX 1.0's or 1.1's (GPSBabel and GDAL read those, so gpslog
/// does too, and says so once), and values in points that gpslog has no column for (heart rate, cadence,
/// temperature, power, depth: Garmin's TrackPointExtension, Strava's `power`, Cluetrust's `gpxdata`), dropped with a
/// count.
struct GPXDocumentNotes {
    /// The root's namespace: elements in it are GPX (as are those in GPX 1.0's and 1.1's own).
    private var namespace: [UInt8] = Array("http://www.topografix.com/GPX/1/1".utf8)

    /// Values dropped, by kind, in the order they are reported.
    private var dropped: [(kind: String, count: Int)] = [
        ("heart rate", 0), ("cadence", 0), ("temperature", 0), ("power", 0), ("depth", 0),
    ]

    /// Checks the root element: `<gpx>` in GPX 1.0's or 1.1's namespace, in none, or in another
    /// `topografix.com/GPX/1/...` one (said once through `visitor.note`); anything else is refused.
    mutating func acceptRoot(_ element: XMLName, namespace ns: XMLName, file: String, visitor: any GPXVisitor) throws {
        let isGPXRoot = element.equals("gpx")
        if isGPXRoot && Self.isStandard(ns) {
            namespace = ns.bytes
            return
        }
        let text = ns.string
        guard isGPXRoot, ns.isEmpty || Self.isGPXLike(text) else {
            throw ImportError.unsupportedFormat(
                file: file,
                detail:
                    "not GPX 1.0 or 1.1: the root element is <\(element.string)> in namespace '\(ns.isEmpty ? "none" : text)'"
            )
        }
        namespace = ns.bytes
        visitor.note(
            ns.isEmpty
                ? "the root <gpx> has no namespace; read as GPX"
                : "the root <gpx> is in namespace '\(text.truncated(to: 120).visible)', not GPX 1.0's or 1.1's; read as GPX"
        )
    }

    /// True for an element of this document's GPX: in the root's namespace, or in GPX 1.0's or 1.1's.
    func isGPX(_ ns: XMLName) -> Bool { ns.equals(namespace) || Self.isStandard(ns) }

    private static func isStandard(_ ns: XMLName) -> Bool {
        ns.equals("http://www.topografix.com/GPX/1/1") || ns.equals("http://www.topografix.com/GPX/1/0")
    }

    /// Namespaces people write for GPX 1.x: https, another case, a trailing slash, a 1.x that does not exist.
    static func isGPXLike(_ text: String) -> Bool {
        let t = text.lowercased()
        return (t.hasPrefix("http://") || t.hasPrefix("https://")) && t.contains("topografix.com/gpx/1/")
    }

    /// Counts an element of a point that holds a value gpslog does not keep (any namespace: Garmin's, Cluetrust's,
    /// Strava's bare `power`).
    mutating func countDropped(_ element: XMLName) {
        let index: Int
        if element.equals("hr") || element.equals("heartrate") {
            index = 0
        } else if element.equals("cad") || element.equals("cadence") {
            index = 1
        } else if element.equals("atemp") || element.equals("wtemp") || element.equals("temp")
            || element.equals("temperature")
        {
            index = 2
        } else if element.equals("power") || element.equals("watts") {
            index = 3
        } else if element.equals("depth") {
            index = 4
        } else {
            return
        }
        dropped[index].count += 1
    }

    /// At the end of the document: one note for every kind of value dropped.
    func reportDropped(to visitor: any GPXVisitor) {
        let counted = dropped.filter { $0.count > 0 }
        guard !counted.isEmpty else { return }
        let list = counted.map { "\($0.count) \($0.kind)" }.joined(separator: ", ")
        visitor.note("dropped \(list) values (gpslog has no column for them)")
    }
}
