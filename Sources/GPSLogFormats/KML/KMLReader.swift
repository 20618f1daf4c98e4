// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogXML

/// Reads KML 2.0 to 2.2 and KMZ with libxml2's SAX2 push parser (`XMLSAXParser`: no DTDs, no entities, no network;
/// millions of points stream through with no per-node allocation) and reports its tracks, points and marks to a
/// `KMLVisitor`. A KMZ's `doc.kml` (else its first `.kml`) is inflated as it is parsed (`KMZArchive`, which refuses a
/// zip bomb before reading it).
///
/// What becomes what:
/// - A placemark's line (LineString, MultiGeometry of them, `gx:Track`, `gx:MultiTrack`) is a track; each LineString
///   or `gx:Track` after its first starts a segment. A `gx:Track` pairs its `when`s with its `gx:coord`s in order.
///   A LineString's points have no time of their own: with a TimeSpan they are spaced evenly from `begin` to `end`
///   (loggers record at a fixed interval; on the real tracks in `../shared/data` this is nearer the true times than
///   spacing by distance), with a TimeStamp (or a span's one end) they all take that time, and without either they
///   are untimed.
/// - A Point placemark is a point of a track when it has a time (TimeStamp, TimeSpan, an `ExtendedData` `time` as
///   GDAL writes it) or GDAL's `track_fid`, or is in GPSBabel's `Points` folder of a track; the Point placemarks of
///   one folder (of one `track_fid`) make one track, in file order. Otherwise it is a mark, as are the Point
///   placemarks that follow a track's line in its folder (gpslog's own export writes its marks so) and those in
///   GPSBabel's `Waypoints` folder.
/// - GPSBabel draws each track twice, as a `Points` folder and a `Path` line: the `Path` is skipped. With
///   `-o kml,track=1` it writes a timed track a third time, as a `gx:Track` placemark before the track's folder, and
///   an untimed one's folder twice: a `Points` folder of a track already read (by name, in the same folder) is
///   skipped. Its `Routes` folder holds routes (reported with `isRoute`).
/// - Polygons, overlays, models and NetworkLinks are not tracks: skipped (polygons and links said in a note).
public enum KMLReader {
    /// Parses the KML or KMZ file at `path`, calling `visitor` for each track, point and mark, in document order.
    /// - Throws: `ImportError` naming the file (for a KMZ, `file.kmz (doc.kml)`) and line: a document that is not KML,
    ///   a value that is not valid, a malformed document (libxml2's words), a zip that is not one or would inflate
    ///   past the limits; or what the visitor threw.
    public static func read(_ path: String, into visitor: any KMLVisitor) throws {
        if try KMZArchive.isZip(path) {
            let archive = try KMZArchive(path: path)
            try parse(archive.displayName, visitor: visitor) { parser in
                try parser.parse { feed in try archive.inflate(feed) }
            }
        } else {
            try parse(path, visitor: visitor) { try $0.parseFile() }
        }
    }

    private static func parse(_ name: String, visitor: any KMLVisitor, _ run: (XMLSAXParser) throws -> Void) throws {
        try SAXReaderHandler.parse(name, reader: KMLFieldReader(path: name), visitor: visitor, run)
    }
}
