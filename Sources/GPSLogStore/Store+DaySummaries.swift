// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// The DaySummaries and DayCells rows (`Schema/024_day_summaries.sql`): each session's figures per UTC day, kept in
/// the transaction that writes, cleans or deletes its entries, like SessionSummaries (Store+KeptSummaries.swift).
///
/// Appended points (the recorder, imports) add to the rows of their days; points written into the middle of the
/// track, and every change a session's summary is counted again for (cleaning, pruning, split, merge, `check`),
/// count the days concerned again from the (Session, TimeStamp) index.
extension Store {
    /// The first and last millisecond of a range of days (nil: unbounded).
    private static func bounds(from first: Int64?, through last: Int64?) -> (Int64, Int64) {
        (first.map { $0 * 86_400_000 } ?? .min, last.map { ($0 + 1) * 86_400_000 - 1 } ?? .max)
    }

    /// The kept figures of the session's days in the range.
    func keptDays(sessionKey: Int64, from first: Int64? = nil, through last: Int64? = nil) throws -> [Int64: DayFigures]
    {
        let (low, high) = (first ?? .min, last ?? .max)
        var days: [Int64: DayFigures] = [:]
        let s = try database.cachedStatement(
            """
            SELECT Day, TrackPoints, LengthNanometres, MovingMilliseconds FROM DaySummaries
            WHERE Session = ?1 AND Day BETWEEN ?2 AND ?3
            """)
        defer { s.reset() }
        try s.bind([.integer(sessionKey), .integer(low), .integer(high)])
        while try s.step() {
            days[s.requiredInt64(at: 0)] = DayFigures(
                trackPoints: Int(s.requiredInt64(at: 1)), lengthNanometres: s.requiredInt64(at: 2),
                movingMilliseconds: s.requiredInt64(at: 3))
        }
        let c = try database.cachedStatement(
            "SELECT Day, Cell FROM DayCells WHERE Session = ?1 AND Day BETWEEN ?2 AND ?3")
        defer { c.reset() }
        try c.bind([.integer(sessionKey), .integer(low), .integer(high)])
        while try c.step() { days[c.requiredInt64(at: 0), default: DayFigures()].cells.insert(c.requiredInt64(at: 1)) }
        return days
    }

    /// The session's days in the range counted from its track points (and the point before the range, where the
    /// range's first step starts).
    func countDays(sessionKey: Int64, from first: Int64? = nil, through last: Int64? = nil) throws -> [Int64:
        DayFigures]
    {
        let (low, high) = Store.bounds(from: first, through: last)
        var previous: KeptSummary.TrackPoint?
        if first != nil {
            let p = try database.cachedStatement(
                """
                SELECT Key, TimeStamp, Latitude, Longitude FROM EntryRows
                WHERE SessionKey = ?1 AND TimeStamp < ?2 AND \(Store.trackPointFilter)
                ORDER BY TimeStamp DESC, Key DESC LIMIT 1
                """)
            defer { p.reset() }
            try p.bind([.integer(sessionKey), .integer(low)])
            if try p.step() { previous = Store.trackPoint(p) }
        }
        let s = try database.cachedStatement(
            """
            SELECT Key, TimeStamp, Latitude, Longitude FROM EntryRows
            WHERE SessionKey = ?1 AND TimeStamp BETWEEN ?2 AND ?3 AND \(Store.trackPointFilter)
            ORDER BY TimeStamp, Key
            """)
        defer { s.reset() }
        try s.bind([.integer(sessionKey), .integer(low), .integer(high)])
        var counter = DayFigures.Counter(after: previous)
        while try s.step() { counter.add(Store.trackPoint(s)) }
        return counter.finish()
    }

    private static func trackPoint(_ s: Statement) -> KeptSummary.TrackPoint {
        .init(
            key: s.requiredInt64(at: 0), time: s.requiredInt64(at: 1), latitude: s.requiredDouble(at: 2),
            longitude: s.requiredDouble(at: 3))
    }

    /// Replaces the session's rows of the days in the range with `days`.
    func saveDays(_ days: [Int64: DayFigures], sessionKey: Int64, from first: Int64? = nil, through last: Int64? = nil)
        throws
    {
        let range: [SQLiteValue] = [.integer(sessionKey), .integer(first ?? .min), .integer(last ?? .max)]
        try database.run("DELETE FROM DaySummaries WHERE Session = ?1 AND Day BETWEEN ?2 AND ?3", range)
        try database.run("DELETE FROM DayCells WHERE Session = ?1 AND Day BETWEEN ?2 AND ?3", range)
        try addDays(days, sessionKey: sessionKey)
    }

    /// Adds `days` to the session's rows (figures summed, cells joined); `kept`: rows that exist, changed by an
    /// UPDATE (a run's figures may be negative, or have no new track point).
    private func addDays(_ days: [Int64: DayFigures], sessionKey: Int64, kept: Bool = false) throws {
        let s = try database.cachedStatement(
            kept
                ? """
                UPDATE DaySummaries SET TrackPoints = TrackPoints + ?3, LengthNanometres = LengthNanometres + ?4,
                    MovingMilliseconds = MovingMilliseconds + ?5
                WHERE Session = ?1 AND Day = ?2
                """
                : """
                INSERT INTO DaySummaries (Session, Day, TrackPoints, LengthNanometres, MovingMilliseconds)
                VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (Session, Day) DO UPDATE SET
                TrackPoints = TrackPoints + ?3, LengthNanometres = LengthNanometres + ?4,
                MovingMilliseconds = MovingMilliseconds + ?5
                """)
        let c = try database.cachedStatement("INSERT OR IGNORE INTO DayCells (Session, Day, Cell) VALUES (?, ?, ?)")
        for (day, figures) in days where figures.trackPoints > 0 || kept {
            defer { s.reset() }
            try s.bind([
                .integer(sessionKey), .integer(day), .integer(Int64(figures.trackPoints)),
                .integer(figures.lengthNanometres), .integer(figures.movingMilliseconds),
            ])
            _ = try s.step()
            for cell in figures.cells {
                defer { c.reset() }
                try c.bind([.integer(sessionKey), .integer(day), .integer(cell)])
                _ = try c.step()
            }
        }
    }

    /// Counts new track points (in track order; `previousLast` the track's last point before them) into the
    /// session's day rows, inside the inserting transaction; `counted` is `DayFigures.count` of them when the caller
    /// has it already.
    func keepDays(
        ofTrack track: [KeptSummary.TrackPoint], previousLast: KeptSummary.TrackPoint?,
        counted: [Int64: DayFigures]? = nil, runs: [InsertedRun] = [], sessionKey: Int64
    ) throws {
        guard let firstNew = track.first, let lastNew = track.last else { return }
        if previousLast.map({ $0.precedes(firstNew) }) ?? true {
            // After the track's end: the steps from its last point on, added to their days.
            try addDays(counted ?? DayFigures.count(track, after: previousLast), sessionKey: sessionKey)
            return
        }
        // Into the middle, as runs between old neighbours: each run's steps added, the step it replaces taken
        // away. Recounting the days instead read a whole day's points for every batch that came out of order
        // (four connections posting one device's batches: 9,000 points/s, falling as the day filled).
        if !runs.isEmpty, try addRuns(runs, of: track, sessionKey: sessionKey) { return }
        // Into the middle: the steps changed end between the first new point and the first point after the last
        // new one; their days are counted again.
        let next = try database.scalar(
            """
            SELECT TimeStamp FROM EntryRows WHERE SessionKey = ?1 AND TimeStamp > ?2 AND \(Store.trackPointFilter)
            ORDER BY TimeStamp LIMIT 1
            """, [.integer(sessionKey), .integer(lastNew.time)])?.int64
        let first = DayFigures.day(of: firstNew.time)
        let last = DayFigures.day(of: max(next ?? lastNew.time, lastNew.time))
        try saveDays(
            try countDays(sessionKey: sessionKey, from: first, through: last), sessionKey: sessionKey, from: first,
            through: last)
    }

    /// Adds runs of new track points to their days: the steps into each new point and from a run's last point into
    /// its old `after`, less the step `before`-`after` they replace. False, with nothing written, when that cannot
    /// be worked out from the steps alone: `after` reached on the ground before and no longer (its cell might have
    /// to go, unless another point of the day is in it), or a day without a kept row; the caller recounts then.
    private func addRuns(_ runs: [InsertedRun], of track: [KeptSummary.TrackPoint], sessionKey: Int64) throws -> Bool {
        var delta: [Int64: DayFigures] = [:]
        for run in runs {
            var previous = run.before
            for i in run.points {
                let step = DayFigures.step(into: track[i], from: previous)
                let day = DayFigures.day(of: track[i].time)
                delta[day, default: DayFigures()].trackPoints += 1
                delta[day, default: DayFigures()].lengthNanometres += step.length
                delta[day, default: DayFigures()].movingMilliseconds += step.moving
                if step.ground {
                    delta[day, default: DayFigures()].cells.insert(
                        DayFigures.cell(latitude: track[i].latitude, longitude: track[i].longitude))
                }
                previous = track[i]
            }
            guard let after = run.after else { continue }
            let old = DayFigures.step(into: after, from: run.before)
            let new = DayFigures.step(into: after, from: previous)
            if old.ground && !new.ground { return false }
            let day = DayFigures.day(of: after.time)
            delta[day, default: DayFigures()].lengthNanometres += new.length - old.length
            delta[day, default: DayFigures()].movingMilliseconds += new.moving - old.moving
            if new.ground {
                delta[day, default: DayFigures()].cells.insert(
                    DayFigures.cell(latitude: after.latitude, longitude: after.longitude))
            }
        }
        // Every day with a change but no new point must have its row already (its old point was counted).
        let kept = try keptDays(sessionKey: sessionKey, from: delta.keys.min(), through: delta.keys.max())
        for (day, figures) in delta where figures.trackPoints == 0 && kept[day] == nil { return false }
        for (day, figures) in delta {
            let base = kept[day] ?? DayFigures()
            if base.lengthNanometres + figures.lengthNanometres < 0
                || base.movingMilliseconds + figures.movingMilliseconds < 0
            {
                return false
            }
        }
        // Days with a kept row change it (an UPDATE: a delta may be negative, which an upsert's VALUES may not be);
        // the others are new days of new points.
        try addDays(delta.filter { kept[$0.key] != nil }, sessionKey: sessionKey, kept: true)
        try addDays(delta.filter { kept[$0.key] == nil }, sessionKey: sessionKey)
        return true
    }

    /// Counts the session's summary and its days again from its entries and keeps both (inside the caller's
    /// transaction): after a change whose effect on them is not worked out row by row.
    func saveRecount(sessionKey: Int64) throws {
        try saveSummary(try recountSummary(sessionKey: sessionKey), sessionKey: sessionKey)
        try saveDays(try countDays(sessionKey: sessionKey), sessionKey: sessionKey)
    }

    /// The days whose kept figures differ from `recount`, as `DaySummaries day YYYY-MM-DD` (what `check` reports).
    static func dayDifferences(kept: [Int64: DayFigures], recount: [Int64: DayFigures]) -> [String] {
        Set(kept.keys).union(recount.keys).sorted().compactMap { day in
            kept[day] == recount[day]
                ? nil : "DaySummaries day " + String(Timestamp(milliseconds: day * 86_400_000).iso8601().prefix(10))
        }
    }
}
