// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix

/// A day's timeline: `/day/2024-05-01` (the places stayed at and the moves between them, as `gpslog timeline`
/// lists them, with the day's map) and `/api/day/2024-05-01` (the same as JSON, with the tracks `day.js` draws).
/// Days are UTC days. Each goes through the viewer's login like the sessions page: a user sees their own sessions'
/// visits and tracks, an admin all. A share link (`/s/TOKEN`) shows one session and never reaches a day: no route
/// here is registered under it.
enum DayPage {
    static func register<Context: RequestContext>(
        on router: Router<Context>, logins: Logins, databasePath: String, tiles: MapTiles?
    ) {
        router.get("/day/:day") { request, context in
            guard let viewer = try await logins.viewer(request) else { return WebView.toLogin }
            let day = context.parameters.get("day") ?? ""
            guard let midnight = DayTimeline.midnight(of: day) else {
                return WebView.html(
                    Pages.page(title: "No such day", "<p>A day is written YYYY-MM-DD, as in /day/2024-05-01.</p>"),
                    status: .badRequest)
            }
            let found = try await read(databasePath) { try Self.timeline($0, midnight, viewer, tracks: false) }
            return WebView.html(page(found, day: day, tiles: tiles))
        }
        router.get("/api/day/:day") { request, context in
            guard let viewer = try await logins.viewer(request) else { return APIRoutes.unauthorized }
            guard let midnight = DayTimeline.midnight(of: context.parameters.get("day") ?? "") else {
                return APIRoutes.bad("a day is /api/day/YYYY-MM-DD")
            }
            let found = try await read(databasePath) { try Self.timeline($0, midnight, viewer, tracks: true) }
            return try APIRoutes.json(found)
        }
    }

    /// The UTC day from `midnight` as `viewer` sees it: their own sessions (none through a share link).
    static func timeline(_ store: Store, _ midnight: Timestamp, _ viewer: SessionViewer, tracks: Bool) throws
        -> DayTimeline
    {
        let visible: Set<Int64> =
            if case .shared = viewer { [] } else { Set(try store.sessions(visibleTo: viewer).map(\.key)) }
        return try store.timeline(
            from: midnight, to: Timestamp(milliseconds: midnight.milliseconds + 86_400_000),
            including: { visible.contains($0.key) }, tracks: tracks)
    }

    static func read<T: Sendable>(_ path: String, _ body: @escaping @Sendable (Store) throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive {
            let store = try Store(path: path)
            defer { store.close() }
            return try body(store)
        }
    }

    /// `09:47:36` of the day, or `2024-04-30 23:10:00` for a time on another.
    static func time(_ t: Timestamp, day: String) -> String {
        let iso = t.iso8601(fraction: false)
        let clock = String(iso.dropFirst(11).prefix(8))
        return iso.hasPrefix(day) ? clock : String(iso.prefix(10)) + " " + clock
    }

    /// The page: links to the day before and after, the map (drawn by `day.js`), and the list.
    static func page(_ timeline: DayTimeline, day: String, tiles: MapTiles?) -> String {
        let escape = Pages.escape
        var items = ""
        for item in timeline.items {
            switch item {
            case .visit(let p):
                let name = p.name.map { "<b>\(escape($0))</b>" }
                let address = p.address.map { escape($0) }
                var place = [name, address].compactMap { $0 }.joined(separator: " · ")
                if place.isEmpty { place = String(format: "%.5f, %.5f", p.latitude, p.longitude) }
                let until = p.departure.map { time($0, day: day) } ?? "still there"
                let stayed =
                    p.departure.map {
                        " (" + Pages.duration(Double($0.milliseconds - p.arrival.milliseconds) / 1000) + ")"
                    }
                    ?? ""
                let merged = p.visits.count > 1 ? ", \(p.visits.count) visits merged" : ""
                items += """
                    <li class="visit" data-lat="\(p.latitude)" data-lon="\(p.longitude)">\
                    <span class="when">\(time(p.arrival, day: day)) to \(until)\(stayed)</span> \(place) \
                    <span class="muted">visit \(p.id)\(merged)</span></li>

                    """
            case .move(let m):
                let seconds = Double(m.end.milliseconds - m.start.milliseconds) / 1000
                items += """
                    <li class="move"><span class="when">\(time(m.start, day: day)) to \(time(m.end, day: day))</span> \
                    \(escape(m.mode?.rawValue ?? "move")) \(Pages.distance(m.distanceMetres)) in \(Pages.duration(seconds))</li>

                    """
            }
        }
        let days = [
            DayTimeline.day(day, plus: -1).map { #"<a href="/day/\#($0)" rel="prev">← \#($0)</a>"# },
            DayTimeline.day(day, plus: 1).map { #"<a href="/day/\#($0)" rel="next">\#($0) →</a>"# },
        ].compactMap { $0 }.joined(separator: " · ")
        var attributes = #" data-day="\#(escape(day))""#
        if let tiles { attributes += tiles.attributes }
        let content =
            timeline.isEmpty
            ? #"<p class="muted" id="no-data">No data on this day: no session of yours has a track point or a visit."#
                + "</p>"
            : """
            <div id="map" role="application" aria-label="Map of the day's tracks"></div>
            <noscript><p>The map needs JavaScript; the list below is the day.</p></noscript>
            <ol class="timeline" id="timeline">
            \(items)</ol>
            """
        return Pages.page(
            title: "Day \(day) (UTC)",
            head: """
                <link rel="stylesheet" href="/lib/leaflet/leaflet.css">
                <script src="/lib/leaflet/leaflet.js" defer></script>
                <script src="/static/day.js" defer></script>
                """,
            bodyAttributes: attributes,
            """
            <p class="days">\(days)</p>
            <p class="muted">Places stayed at and the moves between them, times in UTC; visits that touch at the \
            same place are shown as one. <code>gpslog visit rename ID NAME</code> names a place.</p>
            \(content)
            """)
    }
}
