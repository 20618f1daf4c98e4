// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import PostgresNIO

/// The history map's click lookup, its bounds and what its background drawing reads, from PostgreSQL.
extension PostgresSessionReader {
    /// The session whose track passes nearest the point (as `Store.historySession`), its id.
    public func historySession(
        latitude: Double, longitude: Double, zoom: Int, viewer: SessionViewer, filter: HistoryFilter, radius: Double
    ) throws -> String? {
        guard let scope = try historyScope(viewer) else { return nil }
        try refreshHistory()
        // The zoom-16 tiles within the radius, at most 16 either side of the point's (as `Store.historySession`).
        let k = HistoryRaster.spanZoom
        let at = HistoryRaster.pixel(latitude: latitude, longitude: longitude, zoom: zoom)
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
        let spans = try historySpans(range, scope: scope, filter: filter)
        var best: (distance: Double, span: Int)?
        var previous: (span: Int, time: Int64, x: Double, y: Double)?
        try historyPoints(spans) { span, time, lat, lon in
            let p = HistoryRaster.pixel(latitude: lat, longitude: lon, zoom: zoom)
            var a = (p.x, p.y)
            if let previous, previous.span == span, time - previous.time <= Store.historyLineGap {
                a = (previous.x, previous.y)
            }
            let d = Store.distance(from: at, toSegment: a, (p.x, p.y))
            if d <= radius, d < best?.distance ?? .infinity { best = (d, span) }
            previous = (span, time, p.x, p.y)
        }
        return best.map { spans[$0.span].session }
    }

    /// From the kept per-day figures: a day in the filter's times counts with its whole box.
    public func historyBounds(viewer: SessionViewer, filter: HistoryFilter) throws -> [Double]? {
        guard let scope = try historyScope(viewer) else { return nil }
        try refreshDayFigures()
        var binds = PostgresBindings()
        var clause = "d.first_track_ms IS NOT NULL"
        if let user = scope.user {
            binds.append("overland:\(user)/")
            binds.append("owntracks:\(user)/")
            clause += " AND (starts_with(s.receiver, $1) OR starts_with(s.receiver, $2))"
        }
        if let from = filter.from {
            binds.append(from.milliseconds)
            clause += " AND d.last_track_ms >= $\(binds.count)"
        }
        if let to = filter.to {
            binds.append(to.milliseconds)
            clause += " AND d.first_track_ms <= $\(binds.count)"
        }
        if let device = filter.device {
            binds.append(device)
            clause += " AND right(s.receiver, length($\(binds.count)) + 1) = '/' || $\(binds.count)"
        }
        if let mode = filter.mode {
            binds.append(mode)
            clause += " AND coalesce(s.mode, 'none') = $\(binds.count)"
        }
        guard
            let row = try database.query(
                """
                SELECT min(d.min_latitude), min(d.min_longitude), max(d.max_latitude), max(d.max_longitude)
                FROM day_figures d JOIN sessions s ON s.id = d.session_id WHERE \(clause)
                """, binds, doing: "reading the history map's bounds"
            ).first
        else { return nil }
        let (south, west, north, east) = try row.decode((Double?, Double?, Double?, Double?).self)
        guard let south, let west, let north, let east else { return nil }
        return [south, west, north, east]
    }

    /// An admin only: PostgreSQL's sessions know their users by name, the local accounts by key. A user's tiles are
    /// drawn when they ask.
    public func historyViewers() throws -> [SessionViewer] { [.admin] }

    /// `staleSessions` when three days or more wait to be counted (a sync, an import, a deleted session; a phone's
    /// posts note one or two). `lastEntryKey` is the count of entries inserted and deleted in PostgreSQL's table statistics: it grows with
    /// every write (of any client), as the SQLite store's newest key does.
    public func historyDrawState() throws -> HistoryDrawState {
        let row = try database.query(
            """
            SELECT (SELECT count(*) FROM (SELECT 1 FROM history_stale LIMIT 3) l) >= 3,
                (SELECT count(*)::int8 FROM history_tiles WHERE z = \(HistoryRaster.keptZoom) AND scope = '*'),
                coalesce((SELECT (n_tup_ins + n_tup_del)::int8 FROM pg_stat_user_tables
                    WHERE relid = 'entries'::regclass), 0)
            """, doing: "reading the history map's state"
        ).first
        guard let row else { return HistoryDrawState(staleSessions: false, keptTiles: 0, lastEntryKey: 0) }
        let (stale, kept, writes) = try row.decode((Bool, Int64, Int64).self)
        return HistoryDrawState(staleSessions: stale, keptTiles: kept, lastEntryKey: writes)
    }
}
