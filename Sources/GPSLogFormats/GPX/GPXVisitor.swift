// SPDX-License-Identifier: MIT
import GPSLogModel

/// What a `GPXReader` reports, in document order, on the parsing thread, one call at a time.
///
/// Points come as entries with an empty id and the fields GPX gives: position, `ele`, `time`, `sat`, `hdop`, `vdop`,
/// `pdop`, `fix`, speed and course from GPX 1.0's elements or Garmin's TrackPointExtension v1/v2, `desc` as the
/// address, and for waypoints `name` as the label. A point without a `time` comes with `hasTime` false (its time
/// is then 0): what to do with it is the visitor's choice (import dates it, replay skips it).
public protocol GPXVisitor: AnyObject {
    /// The document's name or time was read (GPX 1.1's `metadata`, GPX 1.0's `gpx/name` and `gpx/time`): both as
    /// known now. `time` is nil when absent or not a valid time.
    func metadata(name: String?, time: Timestamp?)
    /// A `wpt` (an empty `name` is no label).
    func waypoint(_ point: inout Entry, hasTime: Bool) throws
    /// A `wpt` whose `type` is `enter` or `leave`: a region transition as gpslog's export writes it (`name` the
    /// region's); a visitor that keeps no transitions takes it as a waypoint.
    func transition(_ point: inout Entry, event: RegionEvent, hasTime: Bool) throws
    /// A `trk`, or a `rte` when `isRoute`, starts.
    func beginTrack(isRoute: Bool) throws
    /// The track's `name`, `type` or `src` was read: its header as known now.
    func trackHeader(_ header: GPXTrackHeader)
    /// A `trkpt` or `rtept` of the track (its `name` is not kept: labels are for marks).
    func trackPoint(_ point: inout Entry, hasTime: Bool) throws
    /// The `trk` or `rte` ends.
    func endTrack() throws
    /// Something the user should know about the file, said once: a root `<gpx>` read although its namespace is not
    /// GPX's, values dropped for want of a column. One line, no file name.
    func note(_ text: String)
}

extension GPXVisitor {
    /// Ignores the document's name and time.
    public func metadata(name: String?, time: Timestamp?) {}
    /// Ignores waypoints.
    public func waypoint(_ point: inout Entry, hasTime: Bool) throws {}
    /// Takes the transition as a waypoint.
    public func transition(_ point: inout Entry, event: RegionEvent, hasTime: Bool) throws {
        try waypoint(&point, hasTime: hasTime)
    }
    /// Ignores the start of a track.
    public func beginTrack(isRoute: Bool) throws {}
    /// Ignores the track's header.
    public func trackHeader(_ header: GPXTrackHeader) {}
    /// Ignores the end of a track.
    public func endTrack() throws {}
    /// Ignores the note.
    public func note(_ text: String) {}
}

/// A `trk`'s or `rte`'s own fields.
public struct GPXTrackHeader: Sendable {
    /// Its `name`.
    public var name: String?
    /// Its `type`, when that names a trip mode (gpslog's GPX export writes the session's mode there).
    public var mode: TripMode?
    /// The session id that gpslog's own exports write in `src` (`gpslog session ID`).
    public var sourceID: String?

    /// Creates a header from its parts.
    public init(name: String? = nil, mode: TripMode? = nil, sourceID: String? = nil) {
        self.name = name
        self.mode = mode
        self.sourceID = sourceID
    }
}
