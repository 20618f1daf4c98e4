// SPDX-License-Identifier: MIT
import GPSLogModel

/// What a `TCXReader` reports, in document order, on the parsing thread, one call at a time.
///
/// Points come as entries with an empty id and what TCX gives that gpslog has a column for: position, `Time`,
/// `AltitudeMeters`, and speed from Garmin's ActivityExtension (`TPX/Speed`, m/s).
public protocol TCXVisitor: AnyObject {
    /// A `Trackpoint` with a `Position` of the activity or course `activity`, in its `track`-th `Track` (from 0:
    /// each Track is a segment).
    func trackPoint(_ point: inout Entry, hasTime: Bool, activity: TCXActivity, track: Int) throws
    /// A course's `CoursePoint` (its `Name` as the label, its `Notes` as the address).
    func mark(_ point: inout Entry, hasTime: Bool, activity: TCXActivity) throws
    /// Something the user should know, said once at the end (Trackpoints without a position skipped, heart rate,
    /// cadence and power dropped for want of a column). One line, no file name.
    func note(_ text: String)
}

extension TCXVisitor {
    /// Ignores the note.
    public func note(_ text: String) {}
}

/// An `Activity` (or a `MultiSportSession`'s) or a `Course` of a TCX file.
public struct TCXActivity: Sendable, Equatable {
    /// Its place in the file, from 1.
    public var index: Int
    /// A course's `Name` (activities have none: their `Id` is their start time).
    public var name: String?
    /// The activity's `Sport`: `Running` is a run, `Biking` a bicycle ride, `Other` says nothing.
    public var mode: TripMode?
    /// True for a `Course` (planned), false for an `Activity` (recorded).
    public var isCourse: Bool
}
