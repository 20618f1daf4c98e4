// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import PostgresNIO

/// The history map read from PostgreSQL (`Schema/postgres/007_history_tiles.sql`), drawn as the SQLite store draws
/// it (`Store+History.swift`): a zoom-13 tile from the track points of the visits to its zoom-16 tiles, a tile above
/// from its four children, each kept until a write touches it; a deeper tile or a filtered one drawn when asked.
/// Every `serve` on the database keeps and reads the same tiles.
extension PostgresSessionReader: HistoryMapReader {
    /// Whose tracks a viewer sees: the kept tiles' `scope`, and the user whose devices' sessions they are (nil: all).
    struct HistoryScope {
        var key: String
        var user: String?
    }

    /// nil for a share link (it sees one session, never the history) or a user this database does not know.
    func historyScope(_ viewer: SessionViewer) throws -> HistoryScope? {
        switch viewer {
        case .admin: return HistoryScope(key: "*", user: nil)
        case .shared: return nil
        case .user(let key): return try userName(key).map { HistoryScope(key: "user:" + $0, user: $0) }
        }
    }

    /// The tile `z/x/y`: the kept one when `filter` is empty and `z` at most 13, else drawn now.
    public func historyTile(z: Int, x: Int, y: Int, viewer: SessionViewer, filter: HistoryFilter) throws
        -> HistoryRaster
    {
        guard let scope = try historyScope(viewer) else { return HistoryRaster() }
        try refreshHistory()
        if z <= HistoryRaster.keptZoom && filter.isEmpty { return try keptHistoryTile(z: z, x: x, y: y, scope: scope) }
        var raster = HistoryRaster()
        let spans = try historySpans(HistoryRaster.spanRange(z: z, x: x, y: y), scope: scope, filter: filter)
        try drawHistory(spans, into: &raster, z: z, x: x, y: y)
        return raster
    }

    /// The kept tile, drawn and kept now when it is not. Drawn and kept in one transaction holding the tile's lock
    /// (shared: two drawings of one tile may run at once), so a count of new visits, which takes it exclusively
    /// before it drops the tile, drops what this keeps, or waits and is read by it.
    private func keptHistoryTile(z: Int, x: Int, y: Int, scope: HistoryScope) throws -> HistoryRaster {
        if let kept = try storedHistoryTile(z: z, x: x, y: y, scope: scope) { return kept }
        let range = HistoryRaster.spanRange(z: z, x: x, y: y)
        guard try hasHistorySpans(range, scope: scope) else { return HistoryRaster() }
        var raster = HistoryRaster()
        // A child dropped between its drawing and this tile's: drawn again, at most twice.
        for _ in 1...3 {
            var drawn: [HistoryRaster] = []
            if z < HistoryRaster.keptZoom {
                for (qx, qy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    drawn.append(try keptHistoryTile(z: z + 1, x: 2 * x + qx, y: 2 * y + qy, scope: scope))
                }
            }
            let complete = try database.transaction(doing: "drawing a history tile") { () throws -> Bool in
                let lock = Self.historyTileLock(z: z, x: x, y: y)
                var binds = PostgresBindings()
                binds.append(lock.0)
                binds.append(lock.1)
                try database.query(
                    "SELECT pg_advisory_xact_lock_shared($1, $2)", binds, doing: "drawing a history tile")
                raster = HistoryRaster()
                var complete = true
                if z == HistoryRaster.keptZoom {
                    try drawHistory(
                        try historySpans(range, scope: scope, filter: .init()), into: &raster, z: z, x: x, y: y)
                } else {
                    for (i, (qx, qy)) in [(0, 0), (1, 0), (0, 1), (1, 1)].enumerated() {
                        let (cx, cy) = (2 * x + qx, 2 * y + qy)
                        var child = try storedHistoryTile(z: z + 1, x: cx, y: cy, scope: scope)
                        if child == nil,
                            try hasHistorySpans(HistoryRaster.spanRange(z: z + 1, x: cx, y: cy), scope: scope)
                        {
                            complete = false
                            child = drawn[i]
                        }
                        if let child, !child.isEmpty { raster.add(child: child, qx: qx, qy: qy) }
                    }
                }
                guard complete else { return false }
                var row = PostgresBindings()
                row.append(Int16(z))
                row.append(Int32(x))
                row.append(Int32(y))
                row.append(scope.key)
                row.append(ByteBuffer(bytes: raster.sparse))
                try database.execute(
                    """
                    INSERT INTO history_tiles (z, x, y, scope, counts) VALUES ($1, $2, $3, $4, $5)
                    ON CONFLICT (z, x, y, scope) DO UPDATE SET counts = excluded.counts
                    """, row, doing: "keeping a history tile")
                return true
            }
            if complete { break }
        }
        return raster
    }

    private func storedHistoryTile(z: Int, x: Int, y: Int, scope: HistoryScope) throws -> HistoryRaster? {
        var binds = PostgresBindings()
        binds.append(Int16(z))
        binds.append(Int32(x))
        binds.append(Int32(y))
        binds.append(scope.key)
        guard
            let row = try database.query(
                "SELECT counts FROM history_tiles WHERE z = $1 AND x = $2 AND y = $3 AND scope = $4", binds,
                doing: "reading a history tile"
            ).first
        else { return nil }
        // A damaged row is drawn again.
        return try row.decode(ByteBuffer.self).withUnsafeReadableBytes { HistoryRaster(sparse: $0) }
    }

    /// The WHERE of the span queries, from `$1`: the zoom-16 tiles of `r`, the scope's devices, and `filter`'s
    /// times, device and mode (the rules of `Store.sessionFilterWhere`).
    private func spanWhere(_ r: (Int, Int, Int, Int), scope: HistoryScope, filter: HistoryFilter)
        -> (String, PostgresBindings)
    {
        var binds = PostgresBindings()
        for v in [r.0, r.1, r.2, r.3] { binds.append(Int32(v)) }
        var clause = "h.x BETWEEN $1 AND $2 AND h.y BETWEEN $3 AND $4"
        let add = { (sql: String, value: String) in
            binds.append(value)
            clause += " AND " + sql.replacingOccurrences(of: "$?", with: "$\(binds.count)")
        }
        if let user = scope.user {
            binds.append("overland:\(user)/")
            binds.append("owntracks:\(user)/")
            clause += " AND (starts_with(s.receiver, $\(binds.count - 1)) OR starts_with(s.receiver, $\(binds.count)))"
        }
        if let from = filter.from {
            binds.append(from.milliseconds)
            clause += " AND h.last_ms >= $\(binds.count)"
        }
        if let to = filter.to {
            binds.append(to.milliseconds)
            clause += " AND h.first_ms <= $\(binds.count)"
        }
        if let device = filter.device { add("right(s.receiver, length($?) + 1) = '/' || $?", device) }
        if let mode = filter.mode { add("coalesce(s.mode, 'none') = $?", mode) }
        return (clause, binds)
    }

    private func hasHistorySpans(_ r: (Int, Int, Int, Int), scope: HistoryScope) throws -> Bool {
        let (clause, binds) = spanWhere(r, scope: scope, filter: .init())
        return try !database.query(
            "SELECT 1 FROM history_spans h JOIN sessions s ON s.id = h.session_id WHERE \(clause) LIMIT 1", binds,
            doing: "reading the history map's visits"
        ).isEmpty
    }

    /// The visits to the zoom-16 tiles in `r` that `scope` sees and `filter` keeps, each session's merged where they
    /// overlap in time and cut to the filter's times.
    func historySpans(_ r: (Int, Int, Int, Int), scope: HistoryScope, filter: HistoryFilter) throws -> [(
        session: String, first: Int64, last: Int64
    )] {
        let (clause, binds) = spanWhere(r, scope: scope, filter: filter)
        let (from, to) = (filter.from?.milliseconds ?? .min, filter.to?.milliseconds ?? .max)
        var spans: [(session: String, first: Int64, last: Int64)] = []
        for row in try database.query(
            """
            SELECT h.session_id::text, h.first_ms, h.last_ms FROM history_spans h JOIN sessions s ON s.id = h.session_id
            WHERE \(clause) ORDER BY h.session_id, h.first_ms
            """, binds, doing: "reading the history map's visits")
        {
            let (session, first, last) = try row.decode((String, Int64, Int64).self)
            let span = (session: session, first: max(first, from), last: min(last, to))
            if let previous = spans.last, previous.session == span.session, span.first <= previous.last {
                spans[spans.count - 1].last = max(previous.last, span.last)
            } else {
                spans.append(span)
            }
        }
        return spans
    }

    /// Calls `body` with each span's index and its track points in time order (at most `Store.historyPointLimit`
    /// in all): one query for every span.
    func historyPoints(
        _ spans: [(session: String, first: Int64, last: Int64)],
        _ body: (_ span: Int, _ time: Int64, _ latitude: Double, _ longitude: Double) -> Void
    ) throws {
        guard !spans.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append("{" + spans.map(\.session).joined(separator: ",") + "}")
        binds.append(spans.map(\.first))
        binds.append(spans.map(\.last))
        let rows = try database.query(
            """
            SELECT w.i, gpslog_ms(e.time), e.latitude, e.longitude
            FROM unnest($1::uuid[], $2::int8[], $3::int8[]) WITH ORDINALITY AS w(session_id, first_ms, last_ms, i)
            CROSS JOIN LATERAL (
                SELECT time, latitude, longitude, \(Self.key) AS k FROM entries
                WHERE session_id = w.session_id AND time >= gpslog_time(w.first_ms) AND time <= gpslog_time(w.last_ms)
                AND NOT marked AND NOT is_heading_changed ORDER BY session_id, time, \(Self.key)
            ) e
            ORDER BY w.i, e.time, e.k LIMIT \(Store.historyPointLimit)
            """, binds, doing: "reading the history map's track points")
        for row in rows {
            let (i, time, latitude, longitude) = try row.decode((Int64, Int64, Double, Double).self)
            body(Int(i) - 1, time, latitude, longitude)
        }
    }

    /// Draws the track points of `spans` as lines into tile `z/x/y` (no line across `Store.historyLineGap`).
    func drawHistory(
        _ spans: [(session: String, first: Int64, last: Int64)], into raster: inout HistoryRaster, z: Int, x: Int,
        y: Int
    ) throws {
        let origin = (x: Double(x * HistoryRaster.size), y: Double(y * HistoryRaster.size))
        var previous: (span: Int, time: Int64, x: Double, y: Double)?
        try historyPoints(spans) { span, time, latitude, longitude in
            let g = HistoryRaster.pixel(latitude: latitude, longitude: longitude, zoom: z)
            let p = (x: g.x - origin.x, y: g.y - origin.y)
            if let previous, previous.span == span, time - previous.time <= Store.historyLineGap {
                raster.line((previous.x, previous.y), p)
            } else {
                raster.line(p, p)
            }
            previous = (span, time, p.x, p.y)
        }
    }
}
