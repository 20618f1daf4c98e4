// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// Which tracks the history map draws beyond the viewer's own: a time range, one device, one trip mode.
public struct HistoryFilter: Sendable, Equatable {
    /// Only track points at or after this time.
    public var from: Timestamp?
    /// Only track points at or before this time.
    public var to: Timestamp?
    /// Only sessions received from this device (the DEVICE of `Sessions.Receiver`'s `PROTOCOL:USER/DEVICE`).
    public var device: String?

    /// Only sessions of this trip mode (`TripMode`'s raw value), or `none`: those without one.
    public var mode: String?

    /// The names `mode` takes: `none`, then every trip mode.
    public static let modes = ["none"] + TripMode.allCases.map(\.rawValue)

    /// Everything the viewer may see.
    public init(from: Timestamp? = nil, to: Timestamp? = nil, device: String? = nil, mode: String? = nil) {
        (self.from, self.to, self.device, self.mode) = (from, to, device, mode)
    }

    /// True when it filters nothing: the kept tiles answer.
    public var isEmpty: Bool { from == nil && to == nil && device == nil && mode == nil }
}

/// What a round of `serve`'s background drawing of the history map reads first, to draw only when it is worth the
/// bytes it writes (`HistoryWarmer`).
public struct HistoryDrawState: Sendable, Equatable {
    /// Sessions wait to have their visits counted again (an upgrade, a clean, a split).
    public var staleSessions: Bool
    /// Kept zoom-13 tiles, every viewer's: a write drops those it touches.
    public var keptTiles: Int64
    /// The newest entry's key: it grows with every entry written.
    public var lastEntryKey: Int64

    /// The figures.
    public init(staleSessions: Bool, keptTiles: Int64, lastEntryKey: Int64) {
        (self.staleSessions, self.keptTiles, self.lastEntryKey) = (staleSessions, keptTiles, lastEntryKey)
    }
}

/// The history map's tiles (see `Schema/025_history_tiles.sql`): the visits of sessions to zoom-16 tiles, kept as
/// entries are written (in the writing transaction, as the session figures are: `Store+KeptSummaries.swift`), and
/// the tiles drawn from them when asked and kept until a write touches them.
extension Store {
    /// A session away from a tile longer than this starts a new visit row.
    public static let historyJoinGap: Int64 = 10 * 60 * 1000
    /// No line across more than this without a point (`TrackSegmenter`'s gap).
    public static let historyLineGap: Int64 = 5 * 60 * 1000
    /// The most track points one tile drawn from the entries reads (a deep zoom, a filter): the rest is left out.
    public static let historyPointLimit = 2_000_000

    /// The tile `z/x/y` as `viewer` sees the history: the kept one (drawn now when it is not kept) when `filter` is
    /// empty and `z` is at most `HistoryRaster.keptZoom`, else drawn from the entries. A share link sees nothing.
    public func historyTile(z: Int, x: Int, y: Int, viewer: SessionViewer, filter: HistoryFilter = .init()) throws
        -> HistoryRaster
    {
        try sqlite {
            let scope: Int64?
            switch viewer {
            case .admin: scope = nil
            case .user(let key): scope = key
            case .shared: return HistoryRaster()
            }
            try refreshStaleHistory()
            if z <= HistoryRaster.keptZoom && filter.isEmpty {
                return try keptHistoryTile(z: z, x: x, y: y, scope: scope)
            }
            var raster = HistoryRaster()
            let spans = try historySpans(spanRange(z: z, x: x, y: y), scope: scope, filter: filter)
            try drawHistory(spans, into: &raster, z: z, x: x, y: y)
            return raster
        }
    }

    /// The id of the session whose track passes nearest to the point, within `radius` pixels at `zoom`, among
    /// those `viewer` sees; nil when none does.
    public func historySession(
        latitude: Double, longitude: Double, zoom: Int, viewer: SessionViewer, filter: HistoryFilter = .init(),
        radius: Double = 8
    ) throws -> String? {
        try sqlite {
            let scope: Int64?
            switch viewer {
            case .admin: scope = nil
            case .user(let key): scope = key
            case .shared: return nil
            }
            try refreshStaleHistory()
            let k = HistoryRaster.spanZoom
            let at = HistoryRaster.pixel(latitude: latitude, longitude: longitude, zoom: zoom)
            // The zoom-16 tiles within the radius, at most 16 either side of the point's (two zoom-13 tiles).
            let scale = zoom <= k ? Double(1 << (k - zoom)) : 1 / Double(1 << (zoom - k))
            let size = Double(HistoryRaster.size)
            let last = (1 << k) - 1
            let reach = 2 << (k - HistoryRaster.keptZoom)
            let tile = { (v: Double) in min(max(Int(v * scale / size), 0), last) }
            let (cx, cy) = (tile(at.x), tile(at.y))
            let range = (
                max(tile(at.x - radius), cx - reach), min(tile(at.x + radius), cx + reach),
                max(tile(at.y - radius), cy - reach), min(tile(at.y + radius), cy + reach)
            )
            var best: (distance: Double, session: Int64)?
            let s = try database.cachedStatement(Self.historyPointsQuery)
            defer { s.reset() }
            for span in try historySpans(range, scope: scope, filter: filter) {
                try s.bind([.integer(span.session), .integer(span.first), .integer(span.last)])
                var previous: (time: Int64, x: Double, y: Double)?
                while try s.step() {
                    let time = s.requiredInt64(at: 0)
                    let p = HistoryRaster.pixel(
                        latitude: s.requiredDouble(at: 1), longitude: s.requiredDouble(at: 2), zoom: zoom)
                    let a =
                        previous.flatMap { time - $0.time <= Self.historyLineGap ? ($0.x, $0.y) : nil } ?? (p.x, p.y)
                    let d = Self.distance(from: at, toSegment: a, (p.x, p.y))
                    if d <= radius, d < best?.distance ?? .infinity { best = (d, span.session) }
                    previous = (time, p.x, p.y)
                }
                s.reset()
            }
            guard let best else { return nil }
            return try database.scalar("SELECT ID FROM Sessions WHERE Key = ?", [.integer(best.session)])?.string
        }
    }

    /// South, west, north and east of every track `viewer` sees that `filter` keeps (the kept session figures: a
    /// session in the filter's times counts with its whole box); nil when none has a point.
    public func historyBounds(viewer: SessionViewer, filter: HistoryFilter = .init()) throws -> [Double]? {
        try sqlite {
            let (clause, value): (String, Int64?) =
                switch viewer {
                case .admin: ("1", nil)
                case .user(let key): ("s.Owner = ?1", key)
                case .shared(let key): ("s.Key = ?1", key)
                }
            let q = try database.cachedStatement(
                """
                SELECT min(k.MinLatitude), min(k.MinLongitude), max(k.MaxLatitude), max(k.MaxLongitude)
                FROM Sessions s JOIN SessionSummaries k ON k.Session = s.Key WHERE \(clause)
                AND k.LastTime >= ?2 AND k.FirstTime <= ?3 AND \(Self.sessionFilterWhere(device: 4, mode: 5))
                """)
            defer { q.reset() }
            try q.bind([
                SQLiteValue(value), .integer(filter.from?.milliseconds ?? .min),
                .integer(filter.to?.milliseconds ?? .max),
                SQLiteValue(filter.device), SQLiteValue(filter.mode),
            ])
            guard try q.step(), let south = q.double(at: 0), let west = q.double(at: 1), let north = q.double(at: 2),
                let east = q.double(at: 3)
            else { return nil }
            return [south, west, north, east]
        }
    }

    /// The kept tile (z at most `keptZoom`, no filter), drawn and kept now when it is not kept.
    ///
    /// A tile is drawn (zoom 13 from the entries, a parent from its four kept children) and kept in one deferred
    /// transaction: when a write commits after the drawing's reads began, SQLite refuses the INSERT (its snapshot is
    /// stale), so a tile drawn before a write is never kept after the write dropped it. Drawn separately, a tile the
    /// recorder wrote into while it was drawn was kept without those points until the next write there.
    private func keptHistoryTile(z: Int, x: Int, y: Int, scope: Int64?) throws -> HistoryRaster {
        if let kept = try storedHistoryTile(z: z, x: x, y: y, scope: scope) { return kept }
        let range = spanRange(z: z, x: x, y: y)
        guard try hasHistorySpans(range, scope: scope) else { return HistoryRaster() }
        var raster = HistoryRaster()
        // A child a write dropped (or kept from being stored) before this tile's drawing: drawn again, at most twice.
        for _ in 1...3 {
            // The children first, each drawn and kept in its own short transactions; what each returned stands in
            // for one a write kept from being stored (shown now, never kept: the parent is kept whole or not at all).
            var drawn: [HistoryRaster] = []
            if z < HistoryRaster.keptZoom {
                for (qx, qy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    drawn.append(try keptHistoryTile(z: z + 1, x: 2 * x + qx, y: 2 * y + qy, scope: scope))
                }
            }
            var complete = true
            let draw = { [self] () throws in
                raster = HistoryRaster()
                if z == HistoryRaster.keptZoom {
                    try drawHistory(
                        try historySpans(range, scope: scope, filter: .init()), into: &raster, z: z, x: x, y: y)
                } else {
                    for (i, (qx, qy)) in [(0, 0), (1, 0), (0, 1), (1, 1)].enumerated() {
                        let (cx, cy) = (2 * x + qx, 2 * y + qy)
                        var child = try storedHistoryTile(z: z + 1, x: cx, y: cy, scope: scope)
                        if child == nil, try hasHistorySpans(spanRange(z: z + 1, x: cx, y: cy), scope: scope) {
                            complete = false
                            child = drawn[i]
                        }
                        if let child, !child.isEmpty { raster.add(child: child, qx: qx, qy: qy) }
                    }
                }
                guard complete else { return }
                try database.run(
                    "INSERT OR REPLACE INTO HistoryTiles (Z, X, Y, Scope, Counts) VALUES (?, ?, ?, ?, ?)",
                    [
                        .integer(Int64(z)), .integer(Int64(x)), .integer(Int64(y)), .integer(scope ?? -1),
                        .blob(raster.sparse),
                    ])
            }
            do {
                try database.isInTransaction ? draw() : database.transaction(.deferred, draw)
            } catch let error as SQLiteError where error.isBusy {
                // A write came in meanwhile (or holds the lock): this picture is shown, and drawn again next time.
                return raster
            }
            if complete { break }
        }
        return raster
    }

    /// The kept tile's counts; nil when it is not kept.
    func storedHistoryTile(z: Int, x: Int, y: Int, scope: Int64?) throws -> HistoryRaster? {
        let read = try database.cachedStatement(
            "SELECT Counts FROM HistoryTiles WHERE Z = ?1 AND X = ?2 AND Y = ?3 AND Scope = ?4")
        defer { read.reset() }
        try read.bind([.integer(Int64(z)), .integer(Int64(x)), .integer(Int64(y)), .integer(scope ?? -1)])
        return try read.step() ? read.withBlob(at: 0) { HistoryRaster(sparse: $0) } ?? nil : nil
    }

    /// Who sees a different history map: an admin (every session) and each owner of a session; the tiles the
    /// background drawing of `serve` keeps ready.
    public func historyViewers() throws -> [SessionViewer] {
        try sqlite {
            let s = try database.cachedStatement(
                "SELECT DISTINCT Owner FROM Sessions WHERE Owner IS NOT NULL ORDER BY Owner")
            defer { s.reset() }
            var viewers: [SessionViewer] = [.admin]
            while try s.step() { viewers.append(.user(s.requiredInt64(at: 0))) }
            return viewers
        }
    }

    /// Three cheap figures that say how much of the kept pyramid writes have dropped since they were last read
    /// (`serve`'s background drawing reads them every round; see `HistoryDrawState`).
    public func historyDrawState() throws -> HistoryDrawState {
        try sqlite {
            try database.transaction(.deferred) {
                HistoryDrawState(
                    staleSessions: try database.scalar("SELECT EXISTS (SELECT 1 FROM HistoryStale)")?.int64 == 1,
                    keptTiles: try database.scalar(
                        "SELECT count(*) FROM HistoryTiles WHERE Z = ?", [.integer(Int64(HistoryRaster.keptZoom))])?
                        .int64 ?? 0,
                    lastEntryKey: try database.scalar("SELECT max(Key) FROM EntryRows")?.int64 ?? 0)
            }
        }
    }

    /// The zoom-16 tiles (`HistoryRaster.spanZoom`) under tile `z/x/y`, or the one holding it when `z` is deeper:
    /// first and last column, first and last row.
    func spanRange(z: Int, x: Int, y: Int) -> (Int, Int, Int, Int) { HistoryRaster.spanRange(z: z, x: x, y: y) }

    /// The owner clause of the span queries: `?5` is the owner's key, or NULL for every session.
    private static let spanWhere = """
        h.X BETWEEN ?1 AND ?2 AND h.Y BETWEEN ?3 AND ?4 AND (?5 IS NULL OR s.Owner = ?5)
        """

    func hasHistorySpans(_ r: (Int, Int, Int, Int), scope: Int64?) throws -> Bool {
        let s = try database.cachedStatement(
            "SELECT 1 FROM HistorySpans h JOIN Sessions s ON s.Key = h.Session WHERE \(Self.spanWhere) LIMIT 1")
        defer { s.reset() }
        try s.bind([
            .integer(Int64(r.0)), .integer(Int64(r.1)), .integer(Int64(r.2)), .integer(Int64(r.3)), SQLiteValue(scope),
        ])
        return try s.step()
    }

    /// The SQL that keeps the sessions `s` of `HistoryFilter`'s device (bound at `?device`, NULL: any) and mode (at
    /// `?mode`), for the tiles and the map's bounds alike.
    static func sessionFilterWhere(device: Int, mode: Int) -> String {
        """
        (?\(device) IS NULL OR substr(s.Receiver, -length(?\(device)) - 1) = '/' || ?\(device)) \
        AND (?\(mode) IS NULL OR coalesce(s.Mode, 'none') = ?\(mode))
        """
    }

    /// The visits to the zoom-16 tiles in `r` that `scope` sees and `filter` keeps, each session's merged where they
    /// overlap in time (a track through neighbouring tiles) and cut to the filter's times.
    func historySpans(_ r: (Int, Int, Int, Int), scope: Int64?, filter: HistoryFilter) throws -> [(
        session: Int64, first: Int64, last: Int64
    )] {
        let s = try database.cachedStatement(
            """
            SELECT h.Session, h.FirstTime, h.LastTime FROM HistorySpans h JOIN Sessions s ON s.Key = h.Session
            WHERE \(Self.spanWhere) AND h.LastTime >= ?6 AND h.FirstTime <= ?7
            AND \(Self.sessionFilterWhere(device: 8, mode: 9))
            ORDER BY h.Session, h.FirstTime
            """)
        defer { s.reset() }
        let (from, to) = (filter.from?.milliseconds ?? .min, filter.to?.milliseconds ?? .max)
        try s.bind([
            .integer(Int64(r.0)), .integer(Int64(r.1)), .integer(Int64(r.2)), .integer(Int64(r.3)), SQLiteValue(scope),
            .integer(from), .integer(to), SQLiteValue(filter.device), SQLiteValue(filter.mode),
        ])
        var spans: [(session: Int64, first: Int64, last: Int64)] = []
        while try s.step() {
            let span = (
                session: s.requiredInt64(at: 0), first: max(s.requiredInt64(at: 1), from),
                last: min(s.requiredInt64(at: 2), to)
            )
            if let last = spans.last, last.session == span.session, span.first <= last.last {
                spans[spans.count - 1].last = max(last.last, span.last)
            } else {
                spans.append(span)
            }
        }
        return spans
    }

    private static let historyPointsQuery = """
        SELECT TimeStamp, Latitude, Longitude FROM EntryRows WHERE SessionKey = ?1 AND TimeStamp BETWEEN ?2 AND ?3
        AND \(Store.trackPointFilter) ORDER BY TimeStamp, Key
        """

    /// Draws the track points of `spans` as lines into the tile `z/x/y` (no line across `historyLineGap`).
    func drawHistory(
        _ spans: [(session: Int64, first: Int64, last: Int64)], into raster: inout HistoryRaster, z: Int, x: Int, y: Int
    ) throws {
        let s = try database.cachedStatement(Self.historyPointsQuery)
        defer { s.reset() }
        let origin = (x: Double(x * HistoryRaster.size), y: Double(y * HistoryRaster.size))
        var budget = Self.historyPointLimit
        for span in spans where budget > 0 {
            try s.bind([.integer(span.session), .integer(span.first), .integer(span.last)])
            var previous: (time: Int64, x: Double, y: Double)?
            while budget > 0, try s.step() {
                budget -= 1
                let time = s.requiredInt64(at: 0)
                let g = HistoryRaster.pixel(
                    latitude: s.requiredDouble(at: 1), longitude: s.requiredDouble(at: 2), zoom: z)
                let p = (x: g.x - origin.x, y: g.y - origin.y)
                if let previous, time - previous.time <= Self.historyLineGap {
                    raster.line((previous.x, previous.y), p)
                } else {
                    raster.line(p, p)
                }
                previous = (time, p.x, p.y)
            }
            s.reset()
        }
    }

    /// The distance from `p` to the segment a-b.
    public static func distance(from p: (x: Double, y: Double), toSegment a: (Double, Double), _ b: (Double, Double))
        -> Double
    {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1)
        let length = dx * dx + dy * dy
        let t = length == 0 ? 0 : min(max(((p.x - a.0) * dx + (p.y - a.1) * dy) / length, 0), 1)
        let (cx, cy) = (a.0 + t * dx - p.x, a.1 + t * dy - p.y)
        return (cx * cx + cy * cy).squareRoot()
    }
}
