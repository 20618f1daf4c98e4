// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// Keeping the history map's visits (`HistorySpans`) as entries are written, and counting them again for sessions
/// whose track changed otherwise (see `Schema/025_history_tiles.sql`).
extension Store {
    /// Notes that the session's history must be counted again from its entries (a clean, a prune, a split or a
    /// merge changed its track): done before the next tile is drawn.
    func historyChanged(sessionKey: Int64) throws {
        try database.run("INSERT OR IGNORE INTO HistoryStale (Session) VALUES (?)", [.integer(sessionKey)])
    }

    /// Counts rows just inserted into the session's visits (inside the inserting transaction) and drops the kept
    /// tiles they touch. `keys` are the new rows' keys, in the order of `entries`, each larger than any key before.
    ///
    /// A file import (`bulkWrite`) only marks its session to be counted again: the visits of each 2,000-row batch,
    /// written as it came, cost an import of a million points 8 to 17 % of its time (`Benchmarks/README.md`), while
    /// counting the whole track once, before the next tile is drawn, reads it in about a second.
    func keepHistory(of sessionKey: Int64, inserted entries: [Entry], keys: [Int64]) throws {
        guard !keys.isEmpty else { return }
        let stale = try database.cachedStatement("SELECT 1 FROM HistoryStale WHERE Session = ?")
        try stale.bind(sessionKey, at: 1)
        let isStale = try stale.step()
        stale.reset()
        if isStale { return }
        if checksInSwift {
            try historyChanged(sessionKey: sessionKey)
            return
        }
        var track: [(time: Int64, latitude: Double, longitude: Double)] = []
        for i in entries.indices where !entries[i].marked && !entries[i].isHeadingChanged {
            track.append((entries[i].time.milliseconds, entries[i].latitude, entries[i].longitude))
        }
        guard !track.isEmpty else { return }
        track.sort { $0.time < $1.time }
        let s = try database.cachedStatement(
            """
            SELECT TimeStamp, Latitude, Longitude FROM EntryRows WHERE SessionKey = ?1 AND Key < ?2
            AND \(Store.trackPointFilter) ORDER BY TimeStamp DESC, Key DESC LIMIT 1
            """)
        try s.bind([.integer(sessionKey), .integer(keys[0])])
        let previous = try s.step() ? (s.requiredInt64(at: 0), s.requiredDouble(at: 1), s.requiredDouble(at: 2)) : nil
        s.reset()
        // Written into the middle of the track: the lines between old points changed; counted again when asked.
        if let previous, previous.0 > track[0].time {
            try historyChanged(sessionKey: sessionKey)
            return
        }
        var visits = HistoryVisits()
        if let previous { visits.add(time: previous.0, latitude: previous.1, longitude: previous.2) }
        for p in track { visits.add(time: p.time, latitude: p.latitude, longitude: p.longitude) }
        let spans = visits.spans
        try saveVisits(spans, sessionKey: sessionKey)
        // The kept tiles these visits touch, at every level, are drawn again when asked.
        try dropHistoryTiles(over: spans.keys)
    }

    /// Drops the kept tiles (every viewer's, at every level) over these zoom-16 tiles (`HistoryVisits.pack`): they
    /// are drawn again when asked.
    func dropHistoryTiles(over spanTiles: some Sequence<Int64>) throws {
        var dropped = Set<Int64>()
        let drop = try database.cachedStatement("DELETE FROM HistoryTiles WHERE Z = ?1 AND X = ?2 AND Y = ?3")
        for tile in spanTiles {
            let (x, y) = HistoryVisits.unpack(tile)
            for z in 0...HistoryRaster.keptZoom {
                let d = HistoryRaster.spanZoom - z
                guard dropped.insert(Int64(z) << 58 | HistoryVisits.pack(x >> d, y >> d)).inserted else { continue }
                try drop.bind([.integer(Int64(z)), .integer(Int64(x >> d)), .integer(Int64(y >> d))])
                try drop.step()
                drop.reset()
            }
        }
    }

    /// Writes visits: the first of each tile extends the session's latest row there when it follows it closely.
    private func saveVisits(_ visits: [Int64: [(first: Int64, last: Int64)]], sessionKey: Int64) throws {
        let latest = try database.cachedStatement(
            "SELECT FirstTime, LastTime FROM HistorySpans WHERE X = ?1 AND Y = ?2 AND Session = ?3 "
                + "ORDER BY FirstTime DESC LIMIT 1")
        let extend = try database.cachedStatement(
            "UPDATE HistorySpans SET LastTime = max(LastTime, ?5) WHERE X = ?1 AND Y = ?2 AND Session = ?3 "
                + "AND FirstTime = ?4")
        let insert = try database.cachedStatement(
            """
            INSERT INTO HistorySpans (X, Y, Session, FirstTime, LastTime) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT DO UPDATE SET LastTime = max(LastTime, excluded.LastTime)
            """)
        for (tile, spans) in visits {
            let (x, y) = HistoryVisits.unpack(tile)
            let key: [SQLiteValue] = [.integer(Int64(x)), .integer(Int64(y)), .integer(sessionKey)]
            try latest.bind(key)
            let kept = try latest.step() ? (latest.requiredInt64(at: 0), latest.requiredInt64(at: 1)) : nil
            latest.reset()
            var rest = spans[...]
            if let kept, let first = spans.first, first.first >= kept.0, first.first <= kept.1 + Self.historyJoinGap {
                try extend.bind(key + [.integer(kept.0), .integer(first.last)])
                try extend.step()
                extend.reset()
                rest = rest.dropFirst()
            }
            for span in rest {
                try insert.bind(key + [.integer(span.first), .integer(span.last)])
                try insert.step()
                insert.reset()
            }
        }
    }

    /// The session's visits to zoom-16 tiles counted from its track points (inside the caller's transaction).
    func historyRecount(sessionKey: Int64) throws -> HistoryVisits {
        let points = try database.cachedStatement(
            """
            SELECT TimeStamp, Latitude, Longitude FROM EntryRows WHERE SessionKey = ?
            AND \(Store.trackPointFilter) ORDER BY TimeStamp, Key
            """)
        defer { points.reset() }
        var visits = HistoryVisits()
        try points.bind(sessionKey, at: 1)
        while try points.step() {
            visits.add(
                time: points.requiredInt64(at: 0), latitude: points.requiredDouble(at: 1),
                longitude: points.requiredDouble(at: 2))
        }
        return visits
    }

    /// Counts again the visits of the sessions marked stale, and drops the kept tiles their old and new visits
    /// touch (at every level); skipped (the tiles drawn from the visits there are) while another process writes.
    func refreshStaleHistory() throws {
        guard try database.scalar("SELECT EXISTS (SELECT 1 FROM HistoryStale)")?.int64 == 1 else { return }
        let stale = try database.makeStatement("SELECT Session FROM HistoryStale")
        var sessions: [Int64] = []
        while try stale.step() { sessions.append(stale.requiredInt64(at: 0)) }
        stale.reset()
        // Each session read without the write lock (a long one takes seconds, and the recorder must not wait), then
        // written in a short transaction unless its rows changed meanwhile (then it stays stale for the next tile).
        let shape = "SELECT max(Key) || ':' || count(*) FROM EntryRows WHERE SessionKey = ?"
        for session in sessions {
            let counted = { [self] () throws -> (HistoryVisits, String?) in
                let visits = try historyRecount(sessionKey: session)
                return (visits, try database.scalar(shape, [.integer(session)])?.string)
            }
            let (visits, before) = try database.isInTransaction ? counted() : database.transaction(.deferred, counted)
            let write = { [self] () throws in
                guard try database.scalar(shape, [.integer(session)])?.string == before else { return }
                // The tiles of the old visits and of the new ones: those whose pictures change.
                let old = try database.cachedStatement("SELECT DISTINCT X, Y FROM HistorySpans WHERE Session = ?")
                try old.bind(session, at: 1)
                let spans = visits.spans
                var touched = Set(spans.keys)
                while try old.step() {
                    touched.insert(HistoryVisits.pack(Int(old.requiredInt64(at: 0)), Int(old.requiredInt64(at: 1))))
                }
                old.reset()
                try database.run("DELETE FROM HistorySpans WHERE Session = ?", [.integer(session)])
                try saveVisits(spans, sessionKey: session)
                try database.run("DELETE FROM HistoryStale WHERE Session = ?", [.integer(session)])
                try dropHistoryTiles(over: touched)
            }
            do {
                try database.isInTransaction ? write() : database.transaction(.immediate, write)
            } catch let error as SQLiteError where error.isBusy {
                // Another process writes now: the next tile counts it.
            }
        }
    }
}

/// A track's visits to zoom-16 tiles (`HistoryRaster.spanZoom`), fed its points in time order: each point's tile,
/// and each line's (the tiles between two points not more than `historyLineGap` apart), with the times of the
/// line's two ends.
public struct HistoryVisits {
    /// No visit yet.
    public init() {}

    /// By tile (`pack`), the visits in time order.
    public var spans: [Int64: [(first: Int64, last: Int64)]] {
        guard let current else { return closed }
        var all = closed
        Self.note(current.tile, current.first, current.last, into: &all)
        return all
    }
    /// The visits of every tile but the one of the last note.
    private var closed: [Int64: [(first: Int64, last: Int64)]] = [:]
    /// The last tile noted and its visit so far, kept out of `closed` until the track leaves it: a track's next
    /// points are mostly in the same tile (about 75 a pass at walking speed), and a dictionary lookup each was a
    /// third of the time an import spends keeping the visits.
    private var current: (tile: Int64, first: Int64, last: Int64)?
    private var previous: (time: Int64, x: Double, y: Double)?

    /// A zoom-16 tile's column and row as one number.
    public static func pack(_ x: Int, _ y: Int) -> Int64 { Int64(x) << 24 | Int64(y) }
    /// The column and row of a `pack`ed tile.
    public static func unpack(_ key: Int64) -> (Int, Int) { (Int(key >> 24 & 0xFF_FFFF), Int(key & 0xFF_FFFF)) }

    /// Notes a track point (gpslog milliseconds), after every earlier one.
    public mutating func add(time: Int64, latitude: Double, longitude: Double) {
        let g = HistoryRaster.pixel(latitude: latitude, longitude: longitude, zoom: HistoryRaster.spanZoom)
        let size = Double(HistoryRaster.size)
        let p = (x: g.x / size, y: g.y / size)
        if let previous, time - previous.time <= Store.historyLineGap {
            // Sampled every half tile along the line (at most 8192 samples: a jump of 4000 tiles, 1,500 km in
            // Europe, is not drawn whole).
            let steps = min(8192, Int((max(abs(p.x - previous.x), abs(p.y - previous.y)) * 2).rounded(.up)) + 1)
            var last: Int64?
            for i in 0...steps {
                let f = Double(i) / Double(steps)
                let tile = Self.tile(previous.x + (p.x - previous.x) * f, previous.y + (p.y - previous.y) * f)
                if tile != last { note(tile, previous.time, time) }
                last = tile
            }
        } else {
            note(Self.tile(p.x, p.y), time, time)
        }
        previous = (time, p.x, p.y)
    }

    private static func tile(_ x: Double, _ y: Double) -> Int64 {
        let last = (1 << HistoryRaster.spanZoom) - 1
        return pack(min(max(Int(x), 0), last), min(max(Int(y), 0), last))
    }

    private mutating func note(_ tile: Int64, _ first: Int64, _ last: Int64) {
        // Notes come in the order of their first times, so the current visit only grows until the tile changes.
        if let c = current, c.tile == tile, first <= c.last + Store.historyJoinGap {
            current = (tile, min(c.first, first), max(c.last, last))
            return
        }
        if let c = current { Self.note(c.tile, c.first, c.last, into: &closed) }
        current = (tile, first, last)
    }

    /// Adds a visit to a tile's list, extending its last visit when it follows within `historyJoinGap`.
    private static func note(
        _ tile: Int64, _ first: Int64, _ last: Int64, into spans: inout [Int64: [(first: Int64, last: Int64)]]
    ) {
        if let end = spans[tile]?.last, first <= end.last + Store.historyJoinGap {
            spans[tile]![spans[tile]!.count - 1] = (min(end.first, first), max(end.last, last))
        } else {
            spans[tile, default: []].append((first, last))
        }
    }
}
