// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogStore
import NIOPosix

extension SessionJSON {
    /// A session as the sessions page and `/api/sessions` show it: the numbers of `gpslog sessions --json`, and
    /// `recording` also for a device `serve` receives from (its end, the last location, within `liveWindow` of now).
    init(viewing s: SessionSummary) {
        self.init(s)
        recording = Self.isLive(end: s.session.end)
    }

    /// How recent a received session's last location must be for its page to follow it.
    static let liveWindow: Int64 = 5 * 60 * 1000

    /// Open, or ended less than `liveWindow` ago by the wall clock (a received device's session ends at its last
    /// location, batch after batch).
    static func isLive(end: Timestamp?) -> Bool {
        guard let end else { return true }
        return Int64(Date().timeIntervalSince1970 * 1000) - end.milliseconds < liveWindow
    }
}

/// One track point for the charts and the map's cursor.
struct ChartPoint: Codable, Sendable {
    var time: String
    var lat: Double
    var lon: Double
    /// The receiver's speed (m/s), or one derived from the positions (`ChartWindow.speedDerived` says so).
    var speed: Double?
    var altitude: Double?
    var accuracy: Double?
    /// True when a gap lies between this point and the one before (a segment starts, or time passed with no
    /// point): the charts break their lines there. Absent otherwise.
    var gap: Bool?
}

/// A heading change: where the receiver turned, and its new heading (degrees true), drawn as an arrow.
struct ChartHeading: Codable, Sendable {
    var time: String
    var lat: Double
    var lon: Double
    var course: Double?
}

/// Track points, in time order, as the charts draw them: each with its speed (`SpeedDeriver`: the receiver's, or
/// derived from the positions) and a mark where the line must break (`TrackSegmenter`: a segment start or a time
/// gap). Every point of the track is fed in, also those a thinned window leaves out, so that speeds and breaks
/// are those of the whole track.
struct ChartSeries: Sendable {
    private var deriver: SpeedDeriver
    /// `TrackSegmenter`'s rule (a segment start, or more than `gap` without a point), kept here to stay Sendable.
    private let gap: Int64
    private var last: Timestamp?
    private var broken = false
    /// Whether a speed was derived for a point kept.
    private(set) var derived = false

    /// A series that breaks its line, and derives no speed, across more than `gapMilliseconds` without a point.
    init(gapMilliseconds: Int64 = TrackSegmenter.defaultGapMilliseconds) {
        deriver = SpeedDeriver(maxGapMilliseconds: gapMilliseconds)
        gap = gapMilliseconds
    }

    /// Feeds the next track point; its chart point when `keep`, else nil (a break it starts goes to the next kept).
    mutating func add(_ e: Entry, keep: Bool = true) -> ChartPoint? {
        if let last, e.startsSegment || e.time.milliseconds - last.milliseconds > gap { broken = true }
        last = e.time
        let speed = deriver.speed(of: e)
        guard keep else { return nil }
        if speed?.derived == true { derived = true }
        defer { broken = false }
        return ChartPoint(
            time: e.time.iso8601(), lat: e.latitude, lon: e.longitude, speed: speed?.metresPerSecond,
            altitude: e.altitude, accuracy: e.horizontalAccuracy, gap: broken ? true : nil)
    }
}

/// `/api/sessions/ID/entries`: the points, the heading changes, and the cursor `/live` goes on from;
/// `speedDerived` when the speeds were derived from the positions (the receiver gave none).
struct ChartWindow: Codable, Sendable {
    var entries: [ChartPoint]
    var headings: [ChartHeading]
    var cursor: String?
    var speedDerived: Bool?
}

/// A page of a session's marks, and the cursor (`TIME:KEY`) after which the next page starts; nil on the last.
struct MarkPage: Sendable {
    var marks: [SessionJSON.MarkJSON]
    var next: String?
}

/// A recording's new track points (`/api/sessions/ID/live`), whether the session has ended, and the series to
/// feed the next batch to (speeds and breaks go on from this batch's last point).
struct LiveBatch: Sendable {
    var points: [(cursor: String, point: ChartPoint)]
    var ended: Bool
    var series: ChartSeries
}

/// What the view reads of a store: the sessions a viewer may see, and a session's rows. The SQLite `Store`, or
/// PostgreSQL's reader with `serve --store postgres://`.
public typealias ViewStore = SessionCatalog & SessionReader & ViewerScoped & HistoryMapReader

/// Opens the store the view reads sessions from: once for each request, on a thread of NIO's blocking pool.
public typealias ViewStoreOpener = @Sendable () throws -> any ViewStore

/// What the view reads, each call on NIO's blocking thread pool with a connection of its own: the store's reads
/// block, and a page must not hold one of the threads that serve the phones. Everything is read as `viewer` sees it:
/// a session they may not see is no session (nil, a 404), and lists leave it out.
struct ViewData: Sendable {
    let open: ViewStoreOpener
    let viewer: SessionViewer

    /// The most chart points one request returns; a longer window is thinned evenly (the map has the full track).
    /// Five thousand is several points per pixel of a chart as wide as a screen, and keeps a million-point page
    /// near 1 MB (at 20,000 it was 2.3 MB and half a second more to draw).
    static let maxChartPoints = 5_000

    /// `body` for the session `id` (its id, or a unique prefix); nil when there is none, or when it was deleted while
    /// `body` read it: a `delete` from another process may land between the two reads, and that is a 404, not a 500.
    func readSession<T: Sendable>(_ id: String, _ body: @escaping @Sendable (any ViewStore, Session) throws -> T?)
        async throws
        -> T?
    {
        try await read { [viewer] store in
            guard let session = try? store.resolveSession(id, visibleTo: viewer) else { return nil }
            do {
                return try body(store, session)
            } catch {
                if (try? store.resolveSession(session.id, visibleTo: viewer)) == nil { return nil }
                throw error
            }
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any ViewStore) throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive { [open] in
            let store = try open()
            defer { store.close() }
            return try body(store)
        }
    }

    /// Every session, newest first, filtered by a part of the name and a day range (`YYYY-MM-DD`).
    func sessions(name: String? = nil, from: Timestamp? = nil, to: Timestamp? = nil) async throws -> [SessionJSON] {
        try await read { [viewer] store in
            try store.sessions(visibleTo: viewer).filter { s in
                (name.map { s.name.localizedCaseInsensitiveContains($0) } ?? true)
                    && (from.map { s.start >= $0 } ?? true) && (to.map { s.start <= $0 } ?? true)
            }.sorted { $0.start > $1.start }.map { SessionJSON(viewing: try store.summary(of: $0)) }
        }
    }

    /// What `write` writes into a file of a private scratch folder (the writers write files, whole or not at all),
    /// as bytes; the folder is removed.
    static func written(_ write: (String) throws -> Void) throws -> [UInt8] {
        let folder = NSTemporaryDirectory() + "gpslog-view-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/out"
        try write(path)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// One session by id (or unique prefix); nil when there is none.
    func session(_ query: String) async throws -> SessionJSON? {
        try await read { [viewer] store in
            guard let s = try? store.resolveSession(query, visibleTo: viewer) else { return nil }
            return SessionJSON(viewing: try store.summary(of: s))
        }
    }

    /// One session and a page of its marks in one read (its page); nil when there is none.
    func sessionWithMarks(_ query: String, after: (time: Int64, key: Int64)?, limit: Int) async throws -> (
        SessionJSON, MarkPage
    )? {
        try await read { [viewer] store in
            guard let s = try? store.resolveSession(query, visibleTo: viewer) else { return nil }
            let summary = try store.summary(of: s)
            var json = SessionJSON(summary)
            json.recording = SessionJSON.isLive(end: s.end)
            return (json, try Self.markPage(store, summary, after: after, limit: limit))
        }
    }

    /// At most `limit` marks after `after`, and the cursor of the next page when there is more.
    static func markPage(
        _ store: any ViewStore, _ summary: SessionSummary, after: (time: Int64, key: Int64)?, limit: Int
    )
        throws -> MarkPage
    {
        var entries = try store.marks(of: summary.session.id, after: after, limit: limit + 1)
        let more = entries.count > limit
        if more { entries.removeLast() }
        let next = more ? entries.last.map { "\($0.time.milliseconds):\($0.key ?? 0)" } : nil
        return MarkPage(marks: SessionJSON(summary, marks: entries).markList ?? [], next: next)
    }

    /// The session as `gpslog export --format geojson [--simplify TOLERANCE]` writes it, into a private scratch file
    /// whose bytes are returned (the file is removed).
    func geoJSON(_ id: String, tolerance: Double?) async throws -> [UInt8]? {
        try await readSession(id) { store, session in
            return try Self.written { path in
                _ = try Exporter(format: .geojson).export(
                    [try SessionExport(store: store, session: session, simplify: tolerance)], to: path)
            }
        }
    }

    /// The session as `gpslog plot --panels speed,elevation` draws it (the page's picture without JavaScript); a
    /// session with nothing to draw yet (a recording before its first fix) gets a picture that says so.
    func plot(_ id: String) async throws -> [UInt8]? {
        try await readSession(id) { store, session in
            do {
                let export = try SessionExport(store: store, session: session, simplify: nil)
                return try Self.written { path in
                    try SVGPlotWriter(panels: [.speed, .elevation]).write([export], to: TrackOutputs(path: path))
                }
            } catch ExportError.nothingToExport {
                return Self.nothingToPlot
            }
        }
    }

    /// The picture of a session without a track point or a mark.
    static let nothingToPlot = Array(
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="800" height="60" viewBox="0 0 800 60">\
        <text x="400" y="35" text-anchor="middle" font-family="sans-serif" font-size="16">\
        Nothing to plot yet: the session has no track point and no mark.</text></svg>

        """.utf8)

    /// The track points in a time window, thinned evenly to `maxChartPoints`, the window's heading changes (thinned
    /// the same way), and the cursor (`TIME:KEY`) of the newest point read for `/live` to go on from. A window
    /// of more than twice `maxChartPoints` rows is sampled evenly in time by index seeks (a million-point session
    /// costs five thousand seeks, not a million rows); a smaller one is read whole.
    func chartPoints(_ id: String, from: Timestamp?, to: Timestamp?) async throws -> ChartWindow? {
        try await readSession(id) { store, session in
            let summary = try store.summary(of: session)
            let count =
                from == nil && to == nil
                ? summary.trackPointCount : try store.entryCount(of: session.id, from: from, to: to)
            var points: [ChartPoint] = []
            // The newest point read: `/live` sends what comes after it, so no point is missed or sent twice.
            var cursor: String?
            var series = ChartSeries()
            if count > 2 * Self.maxChartPoints, let last = try store.lastTrackPoint(of: session.id) {
                let lo = from ?? session.start
                let hi = min(to ?? last.time, last.time)
                // Samples are a sampling interval apart: a break (and no derived speed) only where three
                // intervals, and at least the segmenter's gap, pass without a point.
                let interval = (hi.milliseconds - lo.milliseconds) / Int64(Self.maxChartPoints)
                series = ChartSeries(gapMilliseconds: max(TrackSegmenter.defaultGapMilliseconds, 3 * interval))
                for e in try store.sampledTrackPoints(of: session.id, from: lo, to: hi, count: Self.maxChartPoints) {
                    if let p = series.add(e) { points.append(p) }
                }
                cursor = "\(last.time.milliseconds):\(last.key ?? 0)"
            } else {
                let step = max(1, (count + Self.maxChartPoints - 1) / Self.maxChartPoints)
                var index = 0
                try store.entries(of: session.id, from: from, to: to, fields: .all).forEach { e in
                    guard !e.marked && !e.isHeadingChanged else { return }
                    defer { index += 1 }
                    cursor = "\(e.time.milliseconds):\(e.key ?? 0)"
                    if let p = series.add(e, keep: index % step == 0) { points.append(p) }
                }
            }
            var headings = Thinned<ChartHeading>(limit: Self.maxChartPoints)
            if summary.headingChangeCount > 0 {
                try store.headingChanges(of: session.id, from: from, to: to).forEach { e in
                    headings.offer {
                        ChartHeading(
                            time: e.time.iso8601(), lat: e.latitude, lon: e.longitude, course: e.heading ?? e.course)
                    }
                }
            }
            return ChartWindow(
                entries: points, headings: headings.items, cursor: cursor, speedDerived: series.derived ? true : nil)
        }
    }

    /// Track points after `after` (`TIME:KEY`, as `LiveBatch` cursors are), at most `limit`, fed to `series` (the
    /// previous batch's); nil when there is no such session.
    func live(_ id: String, after: (time: Int64, key: Int64)?, series: ChartSeries, limit: Int = 2000) async throws
        -> LiveBatch?
    {
        try await readSession(id) { store, session in
            var series = series
            var points: [(String, ChartPoint)] = []
            try store.trackPoints(of: session.id, after: after, limit: limit, marks: false).forEach { e in
                if let p = series.add(e) { points.append(("\(e.time.milliseconds):\(e.key ?? 0)", p)) }
            }
            return LiveBatch(points: points, ended: !SessionJSON.isLive(end: session.end), series: series)
        }
    }

    /// A page of the marks: time, place, label and address (as `gpslog show --json` lists them), at most `limit`
    /// after the cursor `after`.
    func marks(_ id: String, after: (time: Int64, key: Int64)?, limit: Int) async throws -> MarkPage? {
        try await readSession(id) { store, session in
            return try Self.markPage(store, try store.summary(of: session), after: after, limit: limit)
        }
    }
}

/// At most `limit` items from a stream of unknown length, evenly spaced: every item while there are few, then every
/// second, fourth... (the kept ones halved each time the list reaches twice the limit), so memory stays bounded.
struct Thinned<Item> {
    let limit: Int
    private(set) var items: [Item] = []
    private var step = 1
    private var offered = 0

    init(limit: Int) { self.limit = max(1, limit) }

    /// Offers the next item; `make` runs only for an item that is kept.
    mutating func offer(_ make: () -> Item) {
        defer { offered += 1 }
        guard offered % step == 0 else { return }
        items.append(make())
        if items.count >= 2 * limit {
            items = stride(from: 0, to: items.count, by: 2).map { items[$0] }
            step *= 2
        }
    }
}
