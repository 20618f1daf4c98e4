// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// An area in degrees: south to north, west to east (west above east when it crosses the 180th meridian).
public struct GeoBox: Sendable, Equatable {
    /// Latitude of the southern edge, degrees.
    public var south: Double
    /// Longitude of the western edge, degrees.
    public var west: Double
    /// Latitude of the northern edge, degrees.
    public var north: Double
    /// Longitude of the eastern edge, degrees.
    public var east: Double

    /// Creates a box from its edges, in degrees.
    public init(south: Double, west: Double, north: Double, east: Double) {
        self.south = south
        self.west = west
        self.north = north
        self.east = east
    }

    /// Whether the position is inside, edges included (across the 180th meridian when `west` is above `east`).
    public func contains(latitude: Double, longitude: Double) -> Bool {
        guard latitude >= south && latitude <= north else { return false }
        return west <= east ? longitude >= west && longitude <= east : longitude >= west || longitude <= east
    }
}

/// Which entries of a session `deleteEntries` removes: those that meet every condition given.
public struct EntrySelection: Sendable {
    /// First time included; nil: no limit.
    public var from: Timestamp?
    /// Last time included; nil: no limit.
    public var to: Timestamp?
    /// Only inside this area.
    public var box: GeoBox?
    /// Only where this says a position (latitude, longitude) is inside (a region); `box` holds it, to read less.
    public var inside: (@Sendable (Double, Double) -> Bool)?
    /// Only outliers by these rules (`OutlierDetector`): track points, and marks or heading changes at 0°, 0°.
    public var outliers: OutlierRules?

    /// Creates a selection from its conditions; one left nil does not narrow it.
    public init(
        from: Timestamp? = nil, to: Timestamp? = nil, box: GeoBox? = nil,
        inside: (@Sendable (Double, Double) -> Bool)? = nil, outliers: OutlierRules? = nil
    ) {
        self.from = from
        self.to = to
        self.box = box
        self.inside = inside
        self.outliers = outliers
    }

    /// Whether the selection also takes the session's visits, pauses and region transitions in its time and area
    /// (not outliers: those are judged on the track).
    var takesEvents: Bool { outliers == nil }
}

/// What a cleaning removed (or, in a dry run, would remove).
public struct CleaningReport: Sendable, Equatable {
    /// Track points (rows neither marked nor heading changes).
    public var trackPoints = 0
    /// Marks (POIs).
    public var marks = 0
    /// Heading-change rows.
    public var headingChanges = 0
    /// Visits, automatic pauses and resumes, region transitions.
    public var events = 0
    /// Outliers by why (only for an outlier cleaning).
    public var reasons: [OutlierDetector.Reason: Int] = [:]

    /// An empty report.
    public init() {}

    /// Track points, marks and heading changes together.
    public var entries: Int { trackPoints + marks + headingChanges }
}

extension Store {
    /// Deletes the entries of `session` that `selection` takes, in one transaction, with the session's kept figures
    /// counted again and its track's segments kept (a deleted point that started one hands that to the next point).
    /// With `dryRun`, counts them in a read transaction and changes nothing.
    public func deleteEntries(of session: Session, _ selection: EntrySelection, dryRun: Bool = false) throws
        -> CleaningReport
    {
        try sqlite {
            let body = { [self] () throws -> CleaningReport in
                let selected = try selectEntries(of: session, selection)
                var report = selected.report
                let events = selection.takesEvents ? try selectEvents(of: session, selection) : []
                report.events = events.count
                if !dryRun {
                    try deleteRows(selected.keys, segmentStarts: selected.segmentStarts, sessionKey: session.key)
                    for (table, key) in events {
                        try database.run("DELETE FROM \(table) WHERE Key = ?", [.integer(key)])
                    }
                    try saveRecount(sessionKey: session.key)
                    try historyChanged(sessionKey: session.key)
                }
                return report
            }
            return dryRun ? try database.transaction(.deferred, body) : try database.transaction(.immediate, body)
        }
    }

    /// The keys of the session's entries the selection takes, and the times of those that start a segment, read in
    /// track order, and their counts.
    private func selectEntries(of session: Session, _ selection: EntrySelection) throws
        -> (keys: [Int64], segmentStarts: [Int64], report: CleaningReport)
    {
        var report = CleaningReport()
        let s = try database.cachedStatement(
            """
            SELECT Key, TimeStamp, Latitude, Longitude, HorizontalAccuracy, Marked, IsHeadingChanged,
                   \(EntryExtras.select("StartsSegment"))
            FROM EntryRows WHERE SessionKey = ?1 AND TimeStamp BETWEEN ?2 AND ?3 AND Latitude BETWEEN ?4 AND ?5
            AND (CASE WHEN ?6 <= ?7 THEN Longitude BETWEEN ?6 AND ?7 ELSE Longitude >= ?6 OR Longitude <= ?7 END)
            ORDER BY TimeStamp, Key
            """)
        defer { s.reset() }
        let box = selection.box ?? GeoBox(south: -90, west: -180, north: 90, east: 180)
        try s.bind([
            .integer(session.key), .integer(selection.from?.milliseconds ?? .min),
            .integer(selection.to?.milliseconds ?? .max), .real(box.south), .real(box.north), .real(box.west),
            .real(box.east),
        ])
        var keys: [Int64] = []
        var segmentStarts: [Int64] = []
        var detector = selection.outliers.map(OutlierDetector.init(rules:))
        let take = { (key: Int64, marked: Bool, heading: Bool, startsSegment: Bool, time: Int64) in
            keys.append(key)
            if marked {
                report.marks += 1
            } else if heading {
                report.headingChanges += 1
            } else {
                report.trackPoints += 1
                if startsSegment { segmentStarts.append(time) }
            }
        }
        let judged = { (found: [(OutlierDetector.Point, OutlierDetector.Reason)]) in
            for (point, reason) in found {
                report.reasons[reason, default: 0] += 1
                take(point.key, false, false, point.startsSegment, point.time)
            }
        }
        while try s.step() {
            let key = s.requiredInt64(at: 0)
            let time = s.requiredInt64(at: 1)
            let (latitude, longitude) = (s.requiredDouble(at: 2), s.requiredDouble(at: 3))
            let marked = s.requiredInt64(at: 5) == 1
            let heading = s.requiredInt64(at: 6) == 1
            let startsSegment = s.int64(at: 7) == 1
            if let inside = selection.inside, !inside(latitude, longitude) { continue }
            guard detector != nil else {
                take(key, marked, heading, startsSegment, time)
                continue
            }
            if marked || heading {
                if latitude == 0 && longitude == 0 {
                    report.reasons[.nullIsland, default: 0] += 1
                    take(key, marked, heading, startsSegment, time)
                }
                continue
            }
            let point = OutlierDetector.Point(
                key: key, time: time, latitude: latitude, longitude: longitude, accuracy: s.double(at: 4),
                startsSegment: startsSegment)
            judged(detector!.feed(point))
        }
        if detector != nil { judged(detector!.finish()) }
        return (keys, segmentStarts, report)
    }

    /// Deletes rows by key; a deleted track point that started a segment makes the next track point start it.
    func deleteRows(_ keys: [Int64], segmentStarts: [Int64], sessionKey: Int64) throws {
        let delete = try database.cachedStatement("DELETE FROM EntryRows WHERE Key = ?")
        for key in keys {
            try delete.bind(key, at: 1)
            try delete.step()
            delete.reset()
        }
        delete.reset()
        let start = try database.cachedStatement(
            """
            UPDATE EntryRows SET Extras = \(EntryExtras.settingFlag("StartsSegment")) WHERE Key = (
                SELECT Key FROM EntryRows WHERE SessionKey = ?1 AND TimeStamp >= ?2 AND \(Store.trackPointFilter)
                ORDER BY TimeStamp, Key LIMIT 1)
            """)
        for time in segmentStarts {
            try start.bind([.integer(sessionKey), .integer(time)])
            try start.step()
            start.reset()
        }
        try forgetEmptyDays(sessionKey: sessionKey)
    }

    /// Removes the days the session no longer has rows on from EntryDays (days after 1970: SQL's division rounds
    /// towards zero, so day 0 and the days before it are left as they are; a day too many only costs a probe).
    func forgetEmptyDays(sessionKey: Int64) throws {
        try database.run(
            """
            DELETE FROM EntryDays WHERE SessionKey = ?1 AND Day > 0 AND NOT EXISTS (
                SELECT 1 FROM EntryRows WHERE SessionKey = ?1
                AND TimeStamp >= EntryDays.Day * 86400000 AND TimeStamp < (EntryDays.Day + 1) * 86400000)
            """, [.integer(sessionKey)])
    }

    /// The session's visits (by arrival), pauses and transitions in the selection's time and area: (table, key).
    private func selectEvents(of session: Session, _ selection: EntrySelection) throws -> [(String, Int64)] {
        var found: [(String, Int64)] = []
        for (table, time) in Store.timedRecords {
            let s = try database.cachedStatement(
                "SELECT Key, \(time), Latitude, Longitude FROM \(table) WHERE Session = ? ORDER BY \(time), Key")
            try s.bind(session.id, at: 1)
            while try s.step() {
                let t = s.requiredInt64(at: 1)
                let (latitude, longitude) = (s.requiredDouble(at: 2), s.requiredDouble(at: 3))
                if let from = selection.from, t < from.milliseconds { continue }
                if let to = selection.to, t > to.milliseconds { continue }
                if let box = selection.box, !box.contains(latitude: latitude, longitude: longitude) { continue }
                if let inside = selection.inside, !inside(latitude, longitude) { continue }
                found.append((table, s.requiredInt64(at: 0)))
            }
            s.reset()
        }
        return found
    }
}
