// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogXML

/// Reads Garmin's Training Center Database v2 (TCX, also what Google Takeout's Fit export and Strava give) with
/// libxml2's SAX2 push parser (`XMLSAXParser`: streamed, no DTDs, no entities, no network) and reports each
/// `Trackpoint` with a `Position` of every `Activity` and `Course` to a `TCXVisitor`, with its `Track` (a segment),
/// and each `CoursePoint` as a mark. Trackpoints without a position (a pause, a treadmill, a lost fix) are skipped
/// and counted; heart rate, cadence and power are counted and dropped; `DistanceMeters` and the laps' totals are
/// not kept (gpslog computes distance from the track).
public enum TCXReader {
    /// Parses the file at `path`, calling `visitor` for each point, in document order.
    /// - Throws: `ImportError` naming the file and line (not TCX, a value that is not valid, a malformed document in
    ///   libxml2's words), or what the visitor threw.
    public static func read(_ path: String, into visitor: any TCXVisitor) throws {
        try SAXReaderHandler.parse(path, reader: TCXFieldReader(path: path), visitor: visitor) { try $0.parseFile() }
    }
}
