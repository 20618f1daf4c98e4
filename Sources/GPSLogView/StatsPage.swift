// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import HTTPTypes
import Hummingbird
import NIOCore

/// `/stats` and `/api/stats`: the statistics of the sessions the viewer may see (a user's own, an admin's all),
/// never through a share link (which shows one session only: `/s/TOKEN/stats` does not exist). The chart is drawn by
/// `/static/stats.js` with dygraphs, served by gpslog like the session page's.
public enum StatsPage {
    static func register<Context: RequestContext>(
        on router: Router<Context>, logins: Logins, locate: WebView.Locate?
    ) {
        router.get("/api/stats") { request, _ in
            guard let data = try await logins.data(for: request) else { return Response(status: .unauthorized) }
            let stats = try await statistics(data, year: requestedYear(request), locate: locate)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(stats))))
        }
        router.get("/stats") { request, _ in
            guard let data = try await logins.data(for: request) else { return WebView.toLogin }
            let year = requestedYear(request)
            return WebView.html(page(try await statistics(data, year: year, locate: locate), year: year))
        }
    }

    /// `?year=2024`; nil when absent or not a year.
    static func requestedYear(_ request: Request) -> Int? {
        request.uri.queryParameters["year"].flatMap { Int(String($0)) }.flatMap { (1...9999).contains($0) ? $0 : nil }
    }

    /// The statistics of the sessions `data`'s viewer may see; nothing for a share link's viewer.
    static func statistics(_ data: ViewData, year: Int?, locate: WebView.Locate?) async throws -> Statistics {
        let viewer = data.viewer
        return try await data.read { store in
            if case .shared = viewer {
                return try store.statistics(year: year, including: { _ in false }, locate: nil)
            }
            let visible = Set(try store.sessions(visibleTo: viewer).map(\.key))
            let lookup: Statistics.Locate? = locate.map { f in { f($0, $1) } }
            return try store.statistics(year: year, including: { visible.contains($0.key) }, locate: lookup)
        }
    }

    /// The line the page and `gpslog stats` show where there are no visits: where visits come from.
    public static let noVisits =
        "No visits yet: places come from visits, which `gpslog record --visits` records (an arrival after 3 "
        + "minutes standing still) and imports of Google location history bring."

    /// The line for an empty table of distances or sessions.
    static let noDistance = "No distance recorded yet: record or import a session with a track."

    /// A table of `rows` under `header`, or the one line `empty` says when there are none.
    static func table(_ rows: String, header: String, empty: String) -> String {
        rows.isEmpty
            ? #"<p class="muted empty">\#(Pages.escape(empty))</p>"#
            : "<table><tr>\(header)</tr>\n\(rows)\n</table>"
    }

    static func page(_ s: Statistics, year: Int?) -> String {
        let escape = Pages.escape
        func rows(_ list: [Statistics.Visited]) -> String {
            list.isEmpty ? "none" : list.map { "\(escape($0.name)) (\($0.days) d)" }.joined(separator: ", ")
        }
        let months = s.months.map {
            "<tr><td>\(escape($0.period))</td><td>\(escape($0.mode))</td><td>\(Pages.distance($0.distanceMetres))</td>"
                + "<td>\(Pages.duration($0.movingSeconds))</td></tr>"
        }.joined(separator: "\n")
        let places = s.topPlaces.map {
            "<tr><td>\(escape($0.name))</td><td>\($0.visits)</td><td>\(Pages.duration($0.seconds))</td></tr>"
        }.joined(separator: "\n")
        let trips = s.longestTrips.map {
            let link = "/sessions/" + escape($0.session)
            return "<tr><td><a href=\"\(link)\">\(escape($0.name))</a></td><td>\(escape($0.mode))</td>"
                + "<td>\(Pages.distance($0.distanceMetres))</td></tr>"
        }.joined(separator: "\n")
        let yearAttribute = year.map { #" data-year="\#($0)""# } ?? ""
        return Pages.page(
            title: year.map { "Statistics \($0)" } ?? "Statistics",
            head: """
                <link rel="stylesheet" href="/lib/dygraphs/dygraph.css">
                <script src="/lib/dygraphs/dygraph.min.js" defer></script>
                <script src="/static/stats.js" defer></script>
                """,
            bodyAttributes: yearAttribute,
            """
            <ul class="summary">
            <li><b>Distance</b>\(Pages.distance(s.distanceMetres))</li>
            <li><b>Moving</b>\(Pages.duration(s.movingSeconds))</li>
            </ul>
            <div id="stats-chart" class="chart" aria-label="Distance per day or month, by mode"></div>
            <p class="muted" id="stats-days"></p>
            <h2>Months</h2>
            \(table(months, header: "<th>Month</th><th>Mode</th><th>Distance</th><th>Moving</th>", empty: noDistance))
            \(s.placesKnown ? "<p><b>Countries</b> \(rows(s.countries))</p>\n<p><b>Towns</b> \(rows(s.towns))</p>" : "")
            <h2>Most visited places</h2>
            \(table(places, header: "<th>Place</th><th>Visits</th><th>Stayed</th>", empty: noVisits))
            <h2>Longest sessions</h2>
            \(table(trips, header: "<th>Session</th><th>Mode</th><th>Distance</th>", empty: noDistance))
            """)
    }
}
