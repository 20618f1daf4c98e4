// SPDX-License-Identifier: MIT
import GPSLogModel

/// What a `KMLReader` reports, in document order, on the parsing thread, one call at a time.
///
/// Points come as entries with an empty id: position, altitude (the third coordinate; 0 without an `altitudeMode`
/// means none, as GDAL writes it), and for Point placemarks what their `ExtendedData` says (GDAL's `ele`, `speed`,
/// `course`). A point without a time comes with `hasTime` false (its time is then 0): the importer dates it as it
/// dates GPX's untimed points.
public protocol KMLVisitor: AnyObject {
    /// A placemark's line starts: a LineString, a MultiGeometry of them, a `gx:Track` or `gx:MultiTrack`.
    func beginLine(_ line: KMLTrack) throws
    /// A point of the line begun last; `startsPart` for the first point of each LineString or `gx:Track` after
    /// the placemark's first (a segment).
    func linePoint(_ point: inout Entry, hasTime: Bool, startsPart: Bool) throws
    /// A Point placemark that is a point of a track (see `KMLReader`); consecutive ones of one `track` make it.
    func trackPoint(_ point: inout Entry, hasTime: Bool, track: KMLTrack) throws
    /// A Point placemark that is a mark (its name as the label, its description as the address).
    func mark(_ point: inout Entry, hasTime: Bool) throws
    /// A Point placemark that is a region transition (gpslog's export: an `ExtendedData` `event`, enter or leave;
    /// its name the region's); a visitor that keeps no transitions takes it as a mark.
    func transition(_ point: inout Entry, event: RegionEvent, hasTime: Bool) throws
    /// Something the user should know about the file, said once (polygons and network links skipped, values
    /// dropped for want of a column). One line, no file name.
    func note(_ text: String)
}

extension KMLVisitor {
    /// Ignores the note.
    public func note(_ text: String) {}
    /// Takes the transition as a mark.
    public func transition(_ point: inout Entry, event: RegionEvent, hasTime: Bool) throws {
        try mark(&point, hasTime: hasTime)
    }
}

/// A track of a KML file: a placemark's line, or the Point placemarks of one folder (of one GDAL `track_fid`).
public struct KMLTrack: Sendable, Equatable {
    /// Tells tracks apart: the placemark, or the folder and `track_fid`.
    public var key: String
    /// The placemark's name (GPSBabel's `Path` takes its folder's: the track's), or for GPSBabel's `Points` the
    /// track's folder's; nil for other Point placemarks (the session takes the file's name).
    public var name: String?
    /// GDAL's `track_seg_id`: a change starts a segment.
    public var segment: String?
    /// In GPSBabel's `Routes` folder: planned, not recorded (imported only with `--routes`, as GPX's `rte`).
    public var isRoute: Bool

    /// Creates a track from its parts.
    public init(key: String, name: String? = nil, segment: String? = nil, isRoute: Bool = false) {
        self.key = key
        self.name = name
        self.segment = segment
        self.isRoute = isRoute
    }
}
