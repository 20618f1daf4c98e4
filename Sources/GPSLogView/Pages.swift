// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogStore

/// The view's HTML, rendered on the server: the sessions page works without JavaScript; the session page draws its
/// map and charts with it, and says so when it is off.
enum Pages {
    static func escape(_ s: String) -> String { s.xmlEscaped }

    static func page(title: String, head: String = "", bodyAttributes: String = "", _ content: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title)) - gpslog</title>
        <link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
        <link rel="stylesheet" href="/static/style.css">
        \(head)
        </head>
        <body\(bodyAttributes)>
        <header><a href="/">gpslog</a><h1>\(escape(title))</h1></header>
        <main>
        \(content)
        </main>
        </body>
        </html>

        """
    }

    /// `1 h 05 min`, `2 min 27 s`.
    static func duration(_ seconds: Double?) -> String {
        guard let seconds else { return "" }
        let s = Int(seconds.rounded())
        if s >= 3600 { return "\(s / 3600) h \(String(format: "%02d", (s % 3600) / 60)) min" }
        if s >= 60 { return "\(s / 60) min \(String(format: "%02d", s % 60)) s" }
        return "\(s) s"
    }

    static func distance(_ metres: Double) -> String {
        metres >= 1000
            ? DecimalText.string((metres / 10).rounded() / 100, places: 2) + " km" : "\(Int(metres.rounded())) m"
    }

    /// `2018-08-20 09:47:36Z`.
    static func time(_ iso: String) -> String {
        iso.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: ".000Z", with: "Z")
    }

    static func sessions(_ items: [SessionJSON], name: String, from: String, to: String) -> String {
        var rows = ""
        for s in items {
            let live = s.recording ? #" <span class="live" title="still being written">● recording</span>"# : ""
            rows += """
                <tr><td><a href="/sessions/\(escape(s.id))">\(escape(s.name))</a>\(live)</td>\
                <td>\(startLinked(s.start))</td><td class="num">\(duration(s.durationSeconds))</td>\
                <td class="num">\(distance(s.distanceMeters))</td><td class="num">\(s.entries)</td>\
                <td class="num">\(s.marks)</td></tr>

                """
        }
        let table =
            items.isEmpty
            ? #"<p class="muted">No session matches. Record one with <code>gpslog record</code>.</p>"#
            : """
            <table><thead><tr><th>Name</th><th>Start (UTC)</th><th class="num">Duration</th>\
            <th class="num">Distance</th><th class="num">Entries</th><th class="num">Marks</th></tr></thead>
            <tbody>
            \(rows)</tbody></table>
            """
        return page(
            title: "Sessions",
            """
            <form class="filter" method="get" action="/">
            <label>Name <input name="name" value="\(escape(name))"></label>
            \(dateInput("from", "From", from))
            \(dateInput("to", "To", to))
            <button type="submit">Filter</button>
            </form>
            <p class="muted">\(counted(items.count, "session")), newest first. \
            <a href="/history">The history map</a> shows every track at once.</p>
            \(table)
            """)
    }

    /// A session's start with its day a link to the day's timeline: `<a href="/day/2018-08-20">2018-08-20</a>
    /// 09:47:36Z`. Only the sessions list shows it (a login's page: a share link never reaches a day).
    static func startLinked(_ iso: String) -> String {
        let shown = escape(time(iso))
        let day = String(iso.prefix(10))
        guard DayTimeline.midnight(of: day) != nil else { return shown }
        return #"<a href="/day/\#(day)" title="the day's timeline">\#(day)</a>"# + shown.dropFirst(10)
    }

    /// A day as ISO 8601 (`2024-05-08`, UTC) in a text field: a `type="date"` field shows the browser's locale's
    /// format (05/08/2024 reads as 5 August or 8 May), which the sessions' UTC times do not follow.
    static func dateInput(_ name: String, _ label: String, _ value: String) -> String {
        #"<label>\#(label) (UTC) <input name="\#(name)" value="\#(escape(value))" placeholder="YYYY-MM-DD" "#
            + #"pattern="\d{4}-\d{2}-\d{2}" inputmode="numeric" size="10" title="a day as YYYY-MM-DD, UTC"></label>"#
    }

    /// The session page: the summary, the map and the charts; the plot as a picture when JavaScript is off.
    /// `base`: a share link's path (`/s/TOKEN`), under which the page's links and API calls go; nil otherwise.
    static func session(
        _ s: SessionJSON, marks markPage: MarkPage, first: Bool, tiles: MapTiles?, base: String? = nil
    ) -> String {
        let live = s.recording ? #" <span class="live">● recording</span>"# : ""
        // The day's timeline, for a login's page only: a share link shows one session and never a day.
        let day = String(s.start.prefix(10))
        let dayLink =
            base == nil && DayTimeline.midnight(of: day) != nil ? #" <a href="/day/\#(day)">the day</a>"# : ""
        let api = escape(base ?? "") + "/api/sessions/" + escape(s.id)
        var attributes = #" data-session="\#(escape(s.id))""#
        if let base { attributes += #" data-base="\#(escape(base))""# }
        if s.recording { attributes += #" data-recording="true""# }
        if var tiles {
            // A share link's page fetches the file's tiles under its link, without a login.
            if let base, tiles.fromFile { tiles.template = base + tiles.template }
            attributes += tiles.attributes
        }
        return page(
            title: s.name,
            head: """
                <link rel="stylesheet" href="/lib/leaflet/leaflet.css">
                <link rel="stylesheet" href="/lib/dygraphs/dygraph.css">
                <script src="/lib/leaflet/leaflet.js" defer></script>
                <script src="/lib/dygraphs/dygraph.min.js" defer></script>
                <script src="/static/basemap.js" defer></script>
                <script src="/static/app.js" defer></script>
                """,
            bodyAttributes: attributes,
            """
            <ul class="summary">
            <li><b>Start (UTC)</b>\(escape(time(s.start)))\(live)\(dayLink)</li>
            <li><b>Duration</b>\(duration(s.durationSeconds))</li>
            <li><b>Distance</b>\(distance(s.distanceMeters))</li>
            <li><b>Entries</b>\(s.entries)</li>
            <li><b>Marks</b>\(s.marks)</li>
            <li><b>Data</b><a href="\(api)/track.geojson">GeoJSON</a></li>
            </ul>
            <div id="map" role="application" aria-label="Map of the track"></div>
            <noscript><p>The map needs JavaScript; without it, here is the track as <code>gpslog plot</code> draws it:</p>
            <img src="\(api)/plot.svg" alt="The track of \(escape(s.name))" width="800"></noscript>
            <p class="muted chart-note">Times on the charts are UTC, as ISO 8601.</p>
            <div id="charts" class="charts" tabindex="0" aria-label="Charts: left and right arrows step through the \
            points (Shift: faster), Home and End go to the ends, Escape hides the cursor">
            <div id="chart-speed" class="chart" aria-label="Speed against time"></div>
            <div id="chart-altitude" class="chart" aria-label="Elevation against time"></div>
            <div id="chart-accuracy" class="chart" aria-label="Accuracy against time"></div>
            </div>
            \(marks(markPage, session: s, first: first, base: base))
            """)
    }

    /// The most marks listed under the map at once (the map shows them all); a link leads to the next ones.
    static let maxListedMarks = 500

    /// A page of the marks under the map, each a button that flies the map to it (with JavaScript); a list without.
    /// Links lead to the next page and back to the first.
    static func marks(_ page: MarkPage, session s: SessionJSON, first: Bool, base: String? = nil) -> String {
        guard !page.marks.isEmpty || !first else { return "" }
        let link =
            base.map(escape)
            ?? "/sessions/\(escape(s.id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? s.id))"
        var items = ""
        for m in page.marks {
            let label = escape(m.label ?? "mark")
            let address = m.address.map { " <span class=\"muted\">\(escape($0))</span>" } ?? ""
            items += """
                <li><button type="button" data-mark-lat="\(m.latitude)" data-mark-lon="\(m.longitude)">\(label)</button> \
                \(escape(time(m.time)))\(address)</li>

                """
        }
        var links: [String] = []
        if !first { links.append(#"<a href="\#(link)#marks">First marks</a>"#) }
        if let next = page.next {
            links.append(
                #"<a href="\#(link)?marks=\#(escape(next))#marks" rel="next">Next \#(maxListedMarks) marks</a>"#)
        }
        let more = links.isEmpty ? "" : "<p class=\"muted\">\(s.marks) marks: \(links.joined(separator: " · "))</p>\n"
        return "<h2 id=\"marks\">Marks</h2>\n<ol class=\"marks\">\n\(items)</ol>\n\(more)"
    }

    /// The login form: a user name and password when `user` (users have passwords), else the token.
    static func login(failed: Bool, user: Bool, wait: Int? = nil) -> String {
        let what = user ? "logins" : "tokens"
        let message =
            wait.map { #"<p class="live">Too many wrong \#(what) from your address: try again in \#($0) s.</p>"# }
            ?? (failed
                ? (user
                    ? #"<p class="live">That user name or password is not right.</p>"#
                    : #"<p class="live">That token is not right.</p>"#) : "")
        let fields =
            user
            ? """
            <p>Log in to see your sessions.</p>
            \(message)
            <p><label>User <input name="user" autocomplete="username" autofocus required></label></p>
            <p><label>Password <input name="password" type="password" autocomplete="current-password" required></label>
            <button type="submit">Log in</button></p>
            """
            : """
            <p>This gpslog listens beyond this machine: give its view token (or its token) to see the sessions.</p>
            \(message)
            <p><label>Token <input name="token" type="password" autocomplete="current-password" autofocus></label>
            <button type="submit">Log in</button></p>
            """
        return page(
            title: "Log in",
            """
            <form class="login" method="post" action="/login">
            \(fields)
            </form>
            """)
    }
}
