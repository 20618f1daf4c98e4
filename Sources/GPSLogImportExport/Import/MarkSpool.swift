// SPDX-License-Identifier: MIT
import GPSLogModel

/// Entries waiting, in file order, in a scratch file: waypoints for the track that takes them, points without a time
/// for the first time of their track (GPX, GeoJSON, CSV). A GPX of a million waypoints, or a track of millions of
/// points without a time, imports in flat memory. An untimed entry is dated when it is read back.
struct MarkSpool {
    private let file: SpoolFile
    /// The earliest time of a timed waypoint.
    private(set) var earliest: Timestamp?
    // A time no GPX time can be (`Timestamp` parses years 0...9999): the record of a waypoint without one.
    private static let untimed = Timestamp(milliseconds: .min)

    init() throws { file = try SpoolFile(name: "waypoints") }

    mutating func add(_ mark: Entry, hasTime: Bool) throws {
        var mark = mark
        if hasTime {
            earliest = min(earliest ?? mark.time, mark.time)
        } else {
            mark.time = Self.untimed
        }
        try file.append(mark)
    }

    /// Each waypoint in file order, an untimed one at `time`.
    func forEach(untimedAt time: Timestamp, _ body: (Entry) throws -> Void) throws {
        try file.flush()
        var cursor = SpoolCursor(descriptor: file.descriptor, ranges: [0..<file.end])
        while var mark = try cursor.next() {
            if mark.time == Self.untimed { mark.time = time }
            try body(mark)
        }
    }
}
