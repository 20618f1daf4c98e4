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
/// Days are UTC days unless `?tz=Europe/Amsterdam` names a zone, as `gpslog timeline --timezone` does. Each goes through the viewer's login like the sessions page: a user sees their own sessions'
/// visits and tracks, an admin all. A share link (`/s/TOKEN`) shows one session and never reaches a day: no route
/// here is registered under it.
enum DayPage {
    static func register<Context: RequestContext>(
        on router: Router<Context>, logins: Logins, tiles: MapTiles?
    ) {
        router.get("/day/:day") { request, context in
            guard let data = try await logins.data(for: request) else { return WebView.toLogin }
            let day = context.parameters.get("day") ?? ""
            guard let midnight = DayTimeline.midnight(of: day) else {
                return WebView.html(
                    Pages.page(title: "No such day", "<p>A day is written YYYY-MM-DD, as in /day/2024-05-01.</p>"),
                    status: .badRequest)
            }
            guard let zone = Zone(request.uri.queryParameters["tz"].map(String.init)) else {
                return WebView.html(Pages.page(title: "No such time zone", "<p>\(Zone.help)</p>"), status: .badRequest)
            }
            let viewer = data.viewer
            let found = try await data.read { try Self.timeline($0, midnight, zone, viewer, tracks: false) }
            return WebView.html(page(found, day: day, zone: zone, tiles: tiles))
        }
        router.get("/api/day/:day") { request, context in
            guard let data = try await logins.data(for: request) else { return APIRoutes.unauthorized }
            guard let midnight = DayTimeline.midnight(of: context.parameters.get("day") ?? "") else {
                return APIRoutes.bad("a day is /api/day/YYYY-MM-DD")
            }
            guard let zone = Zone(request.uri.queryParameters["tz"].map(String.init)) else {
                return APIRoutes.bad(Zone.help)
            }
            let viewer = data.viewer
            let found = try await data.read { try Self.timeline($0, midnight, zone, viewer, tracks: true) }
            return try APIRoutes.json(found)
        }
    }

    /// The day from `midnight` (UTC) moved to `zone`, as `viewer` sees it: their own sessions (none through a share
    /// link).
    static func timeline(
        _ store: any ViewStore, _ midnight: Timestamp, _ zone: Zone, _ viewer: SessionViewer, tracks: Bool
    )
        throws -> DayTimeline
    {
        let from = Timestamp(milliseconds: midnight.milliseconds - zone.offset(midnight))
        let visible: Set<Int64> =
            if case .shared = viewer { [] } else { Set(try store.sessions(visibleTo: viewer).map(\.key)) }
        return try DayTimeline.read(
            store, from: from, to: Timestamp(milliseconds: from.milliseconds + 86_400_000),
            including: { visible.contains($0.key) }, tracks: tracks)
    }

    /// `09:47:36` of the day, or `2024-04-30 23:10:00` for a time on another, in the page's zone (`offset`
    /// milliseconds east of UTC).
    static func time(_ t: Timestamp, day: String, offset: Int64 = 0) -> String {
        let iso = Timestamp(milliseconds: t.milliseconds + offset).iso8601(fraction: false)
        let clock = String(iso.dropFirst(11).prefix(8))
        return iso.hasPrefix(day) ? clock : String(iso.prefix(10)) + " " + clock
    }

    /// The page: links to the day before and after, the map (drawn by `day.js`), and the list.
    static func page(_ timeline: DayTimeline, day: String, zone: Zone = Zone(nil)!, tiles: MapTiles?) -> String {
        let escape = Pages.escape
        let offset = zone.offset(DayTimeline.midnight(of: day) ?? timeline.from)
        var items = ""
        for item in timeline.items {
            switch item {
            case .visit(let p):
                let name = p.name.map { "<b>\(escape($0))</b>" }
                let address = p.address.map { escape($0) }
                var place = [name, address].compactMap { $0 }.joined(separator: " · ")
                if place.isEmpty { place = String(format: "%.5f, %.5f", p.latitude, p.longitude) }
                let arrival = Self.time(p.arrival, day: day, offset: offset)
                let until =
                    p.departure.map { Self.time($0, day: day, offset: offset) }
                    ?? p.endWords(now: Timestamp(seconds: Date().timeIntervalSince1970)) {
                        Self.time($0, day: day, offset: offset)
                    }
                let stayed =
                    p.departure.map {
                        " (" + Pages.duration(Double($0.milliseconds - p.arrival.milliseconds) / 1000) + ")"
                    }
                    ?? ""
                let merged = p.visits.count > 1 ? ", \(p.visits.count) visits merged" : ""
                items += """
                    <li class="visit" data-lat="\(p.latitude)" data-lon="\(p.longitude)">\
                    <span class="when">\(arrival) to \(until)\(stayed)</span> \(place) \
                    <span class="muted">visit \(p.id)\(merged)</span></li>

                    """
            case .move(let m):
                let seconds = Double(m.end.milliseconds - m.start.milliseconds) / 1000
                let when =
                    Self.time(m.start, day: day, offset: offset) + " to " + Self.time(m.end, day: day, offset: offset)
                items += """
                    <li class="move"><span class="when">\(when)</span> \
                    \(escape(m.mode?.rawValue ?? "move")) \(Pages.distance(m.distanceMetres)) in \(Pages.duration(seconds))</li>

                    """
            }
        }
        let query = zone.query
        let days = [
            DayTimeline.day(day, plus: -1).map { #"<a href="/day/\#($0)\#(query)" rel="prev">← \#($0)</a>"# },
            DayTimeline.day(day, plus: 1).map { #"<a href="/day/\#($0)\#(query)" rel="next">\#($0) →</a>"# },
            // Back to the sessions that started this UTC day, and to the figures.
            #"<a href="/?from=\#(day)&amp;to=\#(day)" id="day-sessions">the sessions of \#(day) (UTC)</a>"#,
            #"<a href="/stats">statistics</a>"#,
        ].compactMap { $0 }.joined(separator: " · ")
        var attributes = #" data-day="\#(escape(day))""#
        if !zone.isUTC { attributes += #" data-tz="\#(escape(zone.name))""# }
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
            title: "Day \(day) (\(zone.label(offset)))",
            head: """
                <link rel="stylesheet" href="/lib/leaflet/leaflet.css">
                <script src="/lib/leaflet/leaflet.js" defer></script>
                <script src="/static/basemap.js" defer></script>
                <script src="/static/day.js" defer></script>
                """,
            bodyAttributes: attributes,
            """
            <p class="days">\(days)</p>
            <form class="filter" method="get" action="/day/\(escape(day))">
            <label>Time zone <input name="tz" value="\(escape(zone.name))" size="20" maxlength="\(Zone.maxLength)" \
            placeholder="Europe/Amsterdam" title="UTC or a zone name such as Europe/Amsterdam"></label>
            <button type="submit">Show</button>
            </form>
            <p class="muted">Places stayed at and the moves between them, the day and its times in \
            \(escape(zone.label(offset))); visits that touch at the same place are shown as one. \
            <code>gpslog visit rename ID NAME</code> names a place.</p>
            \(content)
            """)
    }
}

extension DayPage {
    /// The day page's time zone, from `?tz=`: UTC (the default) or a zone name such as `Europe/Amsterdam`, as
    /// `gpslog timeline --timezone` takes them. Chosen over the browser's zone because the list is rendered here and
    /// works without JavaScript, the day's bounds move with the zone (not only its times), and a link to
    /// `/day/2024-05-01?tz=Europe/Amsterdam` shows the same day on every browser, as the CLI prints it.
    struct Zone {
        static let maxLength = 64
        static let help =
            "tz is UTC or a time zone name such as Europe/Amsterdam (letters, digits, / _ - +, at most \(maxLength))."

        /// `UTC` or the zone's name as given.
        let name: String
        let zone: TimeZone

        /// nil for a name that is too long, has other characters, or names no zone; UTC when absent or empty.
        init?(_ text: String?) {
            let text = text ?? ""
            if text.isEmpty || text.uppercased() == "UTC" {
                (name, zone) = ("UTC", TimeZone(identifier: "UTC")!)
                return
            }
            guard text.utf8.count <= Self.maxLength,
                text.unicodeScalars.allSatisfy({
                    ($0.isASCII && CharacterSet.alphanumerics.contains($0)) || "/_-+".unicodeScalars.contains($0)
                }),
                let zone = TimeZone(identifier: text)
            else { return nil }
            (name, self.zone) = (text, zone)
        }

        var isUTC: Bool { name == "UTC" }

        /// `?tz=NAME` for the page's links, empty for UTC.
        var query: String {
            isUTC ? "" : "?tz=" + (name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        }

        /// Milliseconds east of UTC at the noon after `midnight` (a day of a clock change is an hour shorter or
        /// longer: close enough, as in `gpslog timeline`).
        func offset(_ midnight: Timestamp) -> Int64 {
            Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(midnight.milliseconds) / 1000 + 43_200)))
                * 1000
        }

        /// `UTC`, or `Europe/Amsterdam, +02:00`.
        func label(_ offset: Int64) -> String {
            guard !isUTC else { return "UTC" }
            let minutes = abs(offset) / 60_000
            return name + ", " + (offset < 0 ? "-" : "+") + String(format: "%02d:%02d", minutes / 60, minutes % 60)
        }
    }
}
