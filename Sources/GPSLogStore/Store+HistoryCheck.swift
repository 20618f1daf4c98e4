// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// What `checkHistory` found in the history map's kept data (`Schema/025_history_tiles.sql`).
public struct HistoryCheck: Sendable, Equatable {
    /// Sessions whose kept visits (HistorySpans) were compared with a recount of their track.
    public var sessions = 0
    /// Sessions whose kept visits did not cover their track, or lay where it never went: marked to be counted
    /// again (with `repair`), which the next tile drawn does.
    public var sessionsDiffering: [Session] = []
    /// Kept tiles drawn again and compared.
    public var tiles = 0
    /// Kept tiles that were not what their visits (zoom 13) or their four children (above) draw: dropped (with
    /// `repair`), drawn again when asked.
    public var tilesDiffering = 0
    /// Whether what differed was repaired.
    public var repaired = false

    /// An empty report.
    public init() {}
}

extension Store {
    /// Checks the history map's kept data against the entries: each session's visits to zoom-16 tiles against a
    /// recount of its track (sessions already waiting to be counted again are skipped: the next tile drawn counts
    /// them), then each kept tile against a drawing of it (zoom 13 from the visits, a parent from its four kept
    /// children). With `repair`, a session that differs is marked to be counted again and every kept tile dropped;
    /// a tile that differs is dropped with the tiles above it. Each session and each tile is read in its own
    /// transaction, so a recorder may keep writing: a tile it changes meanwhile is dropped by its write anyway.
    public func checkHistory(repair: Bool = true) throws -> HistoryCheck {
        try sqlite {
            var check = HistoryCheck()
            check.repaired = repair
            for session in try sessions() {
                let differs = try database.transaction(.deferred) { () -> Bool? in
                    let stale = try database.scalar(
                        "SELECT EXISTS (SELECT 1 FROM HistoryStale WHERE Session = ?)", [.integer(session.key)])
                    guard stale?.int64 == 0 else { return nil }
                    return try !historyCovers(sessionKey: session.key)
                }
                guard let differs else { continue }
                check.sessions += 1
                guard differs else { continue }
                check.sessionsDiffering.append(session)
                if repair {
                    try write {
                        try historyChanged(sessionKey: session.key)
                        try database.run("DELETE FROM HistoryTiles")
                    }
                }
            }
            try checkKeptTiles(into: &check, repair: repair)
            return check
        }
    }

    /// True when the session's kept visits cover a recount of its track: the same zoom-16 tiles, and in each, every
    /// recounted visit inside the kept ones (merged when less than `historyJoinGap` apart, as writes extend them).
    private func historyCovers(sessionKey: Int64) throws -> Bool {
        let recount = try historyRecount(sessionKey: sessionKey)
        let kept = try database.cachedStatement(
            "SELECT X, Y, FirstTime, LastTime FROM HistorySpans WHERE Session = ? ORDER BY X, Y, FirstTime")
        defer { kept.reset() }
        try kept.bind(sessionKey, at: 1)
        var keptSpans: [Int64: [(first: Int64, last: Int64)]] = [:]
        while try kept.step() {
            let tile = HistoryVisits.pack(Int(kept.requiredInt64(at: 0)), Int(kept.requiredInt64(at: 1)))
            let span = (first: kept.requiredInt64(at: 2), last: kept.requiredInt64(at: 3))
            if let end = keptSpans[tile]?.last, span.first <= end.last + Self.historyJoinGap {
                keptSpans[tile]![keptSpans[tile]!.count - 1].last = max(end.last, span.last)
            } else {
                keptSpans[tile, default: []].append(span)
            }
        }
        let recounted = recount.spans
        guard Set(keptSpans.keys) == Set(recounted.keys) else { return false }
        for (tile, visits) in recounted {
            let covering = keptSpans[tile] ?? []
            for v in visits where !covering.contains(where: { $0.first <= v.first && v.last <= $0.last }) {
                return false
            }
        }
        return true
    }

    /// Draws every kept tile again, deepest first, and compares.
    private func checkKeptTiles(into check: inout HistoryCheck, repair: Bool) throws {
        let list = try database.makeStatement("SELECT Z, X, Y, Scope FROM HistoryTiles ORDER BY Z DESC, X, Y, Scope")
        var tiles: [(z: Int, x: Int, y: Int, scope: Int64)] = []
        while try list.step() {
            tiles.append(
                (
                    Int(list.requiredInt64(at: 0)), Int(list.requiredInt64(at: 1)), Int(list.requiredInt64(at: 2)),
                    list.requiredInt64(at: 3)
                ))
        }
        list.reset()
        for t in tiles {
            let differs = try database.transaction(.deferred) { () -> Bool? in
                guard let kept = try storedHistoryTile(z: t.z, x: t.x, y: t.y, scope: t.scope) else { return nil }
                guard let drawn = try redrawnHistoryTile(z: t.z, x: t.x, y: t.y, scope: t.scope) else { return nil }
                return drawn != kept
            }
            guard let differs else { continue }  // dropped meanwhile, or a child to compare with is not kept
            check.tiles += 1
            guard differs else { continue }
            check.tilesDiffering += 1
            if repair {
                try write {
                    let drop = try database.cachedStatement(
                        "DELETE FROM HistoryTiles WHERE Z = ?1 AND X = ?2 AND Y = ?3 AND Scope = ?4")
                    for z in 0...t.z {
                        let d = t.z - z
                        try drop.bind([
                            .integer(Int64(z)), .integer(Int64(t.x >> d)), .integer(Int64(t.y >> d)), .integer(t.scope),
                        ])
                        try drop.step()
                        drop.reset()
                    }
                }
            }
        }
    }

    /// A kept tile drawn again as it would be kept now: zoom 13 from the visits, a parent from its four children
    /// (nil when a child that has tracks is not kept: there is nothing cheap to compare with).
    private func redrawnHistoryTile(z: Int, x: Int, y: Int, scope: Int64) throws -> HistoryRaster? {
        let owner = scope < 0 ? nil : scope
        var raster = HistoryRaster()
        if z == HistoryRaster.keptZoom {
            let spans = try historySpans(spanRange(z: z, x: x, y: y), scope: owner, filter: .init())
            try drawHistory(spans, into: &raster, z: z, x: x, y: y)
            return raster
        }
        for (qx, qy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let (cx, cy) = (2 * x + qx, 2 * y + qy)
            if let child = try storedHistoryTile(z: z + 1, x: cx, y: cy, scope: owner) {
                if !child.isEmpty { raster.add(child: child, qx: qx, qy: qy) }
            } else if try hasHistorySpans(spanRange(z: z + 1, x: cx, y: cy), scope: owner) {
                return nil
            }
        }
        return raster
    }
}
