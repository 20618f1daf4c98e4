// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// The SessionSummaries rows: read, written, recounted, and kept up to date as entries are written.
///
/// Why in Swift and not in SQLite triggers: a trigger runs once per row, and an import writes a million rows; one
/// UPDATE per batch costs nothing next to the batch (see Benchmarks/README.md, "Kept summaries", for the GPX import
/// with a trigger per row). The length needs the track's previous point: for rows appended after the track's end
/// (the recorder, imports, serve in order) the kept row holds it; a point written into the middle of the track
/// (serve receiving a late point) looks up its neighbours in the (Session, TimeStamp) index.
extension Store {
    /// The SessionSummaries columns `readKeptSummary` reads, in its order.
    static let summaryColumns = """
        EntryCount, TrackPoints, Marks, HeadingChanges, Fixes, FirstTime, LastTime, MinLatitude, MaxLatitude, \
        MinLongitude, MaxLongitude, MaxSpeed, LengthNanometres, LastKey, LastLatitude, LastLongitude
        """

    /// The kept figures at `offset`, or nil when the row is missing (a LEFT JOIN without one).
    static func readKeptSummary(_ s: Statement, offset o: Int32 = 0) -> KeptSummary? {
        guard let entries = s.int(at: o) else { return nil }
        var k = KeptSummary()
        k.entryCount = entries
        k.trackPoints = s.int(at: o + 1) ?? 0
        k.marks = s.int(at: o + 2) ?? 0
        k.headingChanges = s.int(at: o + 3) ?? 0
        k.fixes = s.int(at: o + 4) ?? 0
        k.firstTime = s.int64(at: o + 5)
        k.lastTime = s.int64(at: o + 6)
        k.minLatitude = s.double(at: o + 7)
        k.maxLatitude = s.double(at: o + 8)
        k.minLongitude = s.double(at: o + 9)
        k.maxLongitude = s.double(at: o + 10)
        k.maxSpeed = s.double(at: o + 11)
        k.lengthNanometres = s.int64(at: o + 12) ?? 0
        if let key = s.int64(at: o + 13), let time = k.lastTime, let lat = s.double(at: o + 14),
            let lon = s.double(at: o + 15)
        {
            k.last = KeptSummary.TrackPoint(key: key, time: time, latitude: lat, longitude: lon)
        }
        return k
    }

    /// The kept row of the session with this key; nil when it is not known.
    func keptSummary(sessionKey: Int64) throws -> KeptSummary? {
        let s = try database.cachedStatement("SELECT \(Store.summaryColumns) FROM SessionSummaries WHERE Session = ?")
        defer { s.reset() }
        try s.bind(sessionKey, at: 1)
        return try s.step() ? Store.readKeptSummary(s) : nil
    }

    /// Writes the session's row (inside the caller's transaction).
    func saveSummary(_ k: KeptSummary, sessionKey: Int64) throws {
        try database.run(
            """
            INSERT OR REPLACE INTO SessionSummaries (Session, \(Store.summaryColumns))
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .integer(sessionKey), .integer(Int64(k.entryCount)), .integer(Int64(k.trackPoints)),
                .integer(Int64(k.marks)), .integer(Int64(k.headingChanges)), .integer(Int64(k.fixes)),
                SQLiteValue(k.firstTime), SQLiteValue(k.lastTime), SQLiteValue(k.minLatitude),
                SQLiteValue(k.maxLatitude), SQLiteValue(k.minLongitude), SQLiteValue(k.maxLongitude),
                SQLiteValue(k.maxSpeed), .integer(k.lengthNanometres), SQLiteValue(k.last?.key),
                SQLiteValue(k.last?.latitude), SQLiteValue(k.last?.longitude),
            ])
    }

    /// Makes the session's figures unknown, so the next read counts them again: for a write whose effect on them was
    /// not worked out (one that failed half-way).
    func forgetSummary(sessionKey: Int64) throws {
        try database.run("DELETE FROM SessionSummaries WHERE Session = ?", [.integer(sessionKey)])
    }

    /// The session's figures counted from its entries: one walk through the (Session, TimeStamp) index in track order.
    func recountSummary(sessionKey: Int64) throws -> KeptSummary {
        let s = try database.cachedStatement(
            """
            SELECT Key, TimeStamp, Latitude, Longitude, Speed, Marked, IsHeadingChanged, InstanceCount FROM EntryRows
            WHERE SessionKey = ? ORDER BY TimeStamp, Key
            """)
        defer { s.reset() }
        try s.bind(sessionKey, at: 1)
        var k = KeptSummary()
        while try s.step() {
            let marked = s.requiredInt64(at: 5) == 1
            let heading = s.requiredInt64(at: 6) == 1
            let point = KeptSummary.TrackPoint(
                key: s.requiredInt64(at: 0), time: s.requiredInt64(at: 1), latitude: s.requiredDouble(at: 2),
                longitude: s.requiredDouble(at: 3))
            k.count(
                time: point.time, latitude: point.latitude, longitude: point.longitude, speed: s.double(at: 4),
                marked: marked, headingChanged: heading, instanceCount: Int(s.requiredInt64(at: 7)))
            guard !marked && !heading else { continue }
            if let last = k.last { k.lengthNanometres += KeptSummary.step(last, point) }
            k.last = point
        }
        return k
    }

    /// The session's figures, kept or (when not known) counted now and kept for the next read when this connection
    /// can write without waiting: counted and written in one transaction, which a write by another process since the
    /// count began makes fail (SQLite refuses to turn a read that is no longer the latest into a write), so a count
    /// never overwrites newer figures.
    func summaryFigures(of session: Session) throws -> KeptSummary {
        if let kept = try keptSummary(sessionKey: session.key) { return kept }
        let recount = { [self] () throws -> KeptSummary in
            let k = try recountSummary(sessionKey: session.key)
            do {
                try saveSummary(k, sessionKey: session.key)
                try saveDays(try countDays(sessionKey: session.key), sessionKey: session.key)
            } catch let error as SQLiteError where error.isBusy {
                // Another process writes now: this count answers this read only.
            }
            return k
        }
        return try database.isInTransaction ? recount() : database.transaction(.deferred, recount)
    }

    /// Counts rows just inserted into the session's kept figures (inside the inserting transaction). `keys` are the
    /// new rows' keys, in the order of `entries`, each larger than any key before the insert.
    func keepSummary(of sessionKey: Int64, inserted entries: [Entry], keys: [Int64]) throws {
        // Figures not known stay so: they are counted at the next read.
        guard !keys.isEmpty, var kept = try keptSummary(sessionKey: sessionKey) else { return }
        var track: [KeptSummary.TrackPoint] = []
        // By index, not `for e in`: a copy of each Entry (its strings retained and released) was 2 % of an import.
        for i in entries.indices {
            kept.count(
                time: entries[i].time.milliseconds, latitude: entries[i].latitude, longitude: entries[i].longitude,
                speed: entries[i].speed, marked: entries[i].marked, headingChanged: entries[i].isHeadingChanged,
                instanceCount: entries[i].instanceCount)
            if !entries[i].marked && !entries[i].isHeadingChanged {
                track.append(
                    .init(
                        key: keys[i], time: entries[i].time.milliseconds, latitude: entries[i].latitude,
                        longitude: entries[i].longitude))
            }
        }
        let previousLast = kept.last
        var days: [Int64: DayFigures]?
        var runs: [InsertedRun] = []
        if !track.isEmpty {
            track.sort { $0.precedes($1) }
            if let last = kept.last, !last.precedes(track[0]) {
                runs = try insertedRuns(track, sessionKey: sessionKey, firstNewKey: keys[0])
                insertIntoLength(track, runs: runs, kept: &kept)
            } else {
                // After the track's end (or the track's first points): the steps from its last point on, counted
                // once for the session and its days (the days' lengths are those steps, split by day).
                let counted = DayFigures.count(track, after: kept.last)
                for figures in counted.values { kept.lengthNanometres += figures.lengthNanometres }
                kept.last = track.last
                days = counted
            }
        }
        try saveSummary(kept, sessionKey: sessionKey)
        try keepDays(ofTrack: track, previousLast: previousLast, counted: days, runs: runs, sessionKey: sessionKey)
    }

    /// A run of new track points (indexes into the sorted new points) between two neighbouring old ones: the step
    /// `before`-`after` becomes `before`, the run, `after` (nil: the run is before the track's first point, or
    /// after its last).
    struct InsertedRun {
        var before: KeptSummary.TrackPoint?
        var points: ClosedRange<Int>
        var after: KeptSummary.TrackPoint?
    }

    /// The runs of new track points (in track order) that fall before the track's last point, with their old
    /// neighbours from the (Session, TimeStamp) index.
    private func insertedRuns(_ track: [KeptSummary.TrackPoint], sessionKey: Int64, firstNewKey: Int64) throws
        -> [InsertedRun]
    {
        var runs: [InsertedRun] = []
        var i = 0
        while i < track.count {
            let before = try oldNeighbour(of: track[i], sessionKey: sessionKey, firstNewKey: firstNewKey, after: false)
            let after = try oldNeighbour(of: track[i], sessionKey: sessionKey, firstNewKey: firstNewKey, after: true)
            // The run: the new points before `after` (a new point at `after`'s time comes after it: a larger key).
            var j = i
            while j + 1 < track.count, after.map({ track[j + 1].time < $0.time }) ?? true { j += 1 }
            runs.append(InsertedRun(before: before, points: i...j, after: after))
            i = j + 1
        }
        return runs
    }

    /// Adds the runs to the length: each replaces the step between its neighbours.
    private func insertIntoLength(_ track: [KeptSummary.TrackPoint], runs: [InsertedRun], kept: inout KeptSummary) {
        for run in runs {
            let (i, j) = (run.points.lowerBound, run.points.upperBound)
            if let before = run.before { kept.lengthNanometres += KeptSummary.step(before, track[i]) }
            for k in i..<j { kept.lengthNanometres += KeptSummary.step(track[k], track[k + 1]) }
            if let after = run.after { kept.lengthNanometres += KeptSummary.step(track[j], after) }
            if let before = run.before, let after = run.after {
                kept.lengthNanometres -= KeptSummary.step(before, after)
            }
            if run.after == nil { kept.last = track[j] }
        }
    }

    /// The old track point (key below `firstNewKey`) just before `point` in track order, or just after it.
    private func oldNeighbour(
        of point: KeptSummary.TrackPoint, sessionKey: Int64, firstNewKey: Int64, after: Bool
    ) throws -> KeptSummary.TrackPoint? {
        let s = try database.cachedStatement(
            after
                ? """
                SELECT Key, TimeStamp, Latitude, Longitude FROM EntryRows
                WHERE SessionKey = ?1 AND TimeStamp > ?2 AND Key < ?3 AND \(Store.trackPointFilter)
                ORDER BY TimeStamp, Key LIMIT 1
                """
                : """
                SELECT Key, TimeStamp, Latitude, Longitude FROM EntryRows
                WHERE SessionKey = ?1 AND TimeStamp <= ?2 AND Key < ?3 AND \(Store.trackPointFilter)
                ORDER BY TimeStamp DESC, Key DESC LIMIT 1
                """)
        defer { s.reset() }
        try s.bind([.integer(sessionKey), .integer(point.time), .integer(firstNewKey)])
        guard try s.step() else { return nil }
        return .init(
            key: s.requiredInt64(at: 0), time: s.requiredInt64(at: 1), latitude: s.requiredDouble(at: 2),
            longitude: s.requiredDouble(at: 3))
    }

    /// The key of the session with this id.
    func sessionKey(of sessionID: String) throws -> Int64? {
        try database.scalar("SELECT Key FROM Sessions WHERE ID = ?", [.text(sessionID)])?.int64
    }
}
