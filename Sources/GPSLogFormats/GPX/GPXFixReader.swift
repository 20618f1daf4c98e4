// SPDX-License-Identifier: MIT
import GPSLogModel

/// The track points of a GPX file as fixes, for `replay:`: what `GPXReader` reads of each timed `trkpt` (position,
/// `ele`, `time`, `sat`, `hdop`/`vdop`/`pdop`, `fix`, and speed and course from GPX 1.0 or Garmin's
/// TrackPointExtension). Points without a time cannot be replayed and are skipped, as are routes and waypoints.
public struct GPXFixReader {
    /// The GPX file read.
    public let path: String

    /// A reader of the file at `path`; it is opened by `read`.
    public init(path: String) { self.path = path }

    /// Calls `body` for each timed track point, in file order.
    public func read(_ body: (Fix) throws -> Void) throws {
        try withoutActuallyEscaping(body) { body in
            try GPXReader.read(path, into: TimedTrackPoints(body))
        }
    }
}

/// Hands on the timed points of tracks (not routes) as fixes.
private final class TimedTrackPoints: GPXVisitor {
    private let body: (Fix) throws -> Void
    private var inRoute = false

    init(_ body: @escaping (Fix) throws -> Void) { self.body = body }

    func beginTrack(isRoute: Bool) throws { inRoute = isRoute }

    func trackPoint(_ point: inout Entry, hasTime: Bool) throws {
        guard hasTime, !inRoute else { return }
        try body(
            Fix(
                time: point.time, latitude: point.latitude, longitude: point.longitude, altitude: point.altitude,
                speed: point.speed,
                course: point.course, satellites: point.satellites, hdop: point.hdop, vdop: point.vdop,
                pdop: point.pdop,
                fixMode: point.fixMode))
    }
}
