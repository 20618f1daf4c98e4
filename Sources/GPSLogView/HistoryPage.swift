// SPDX-License-Identifier: MIT
import Foundation
import GPSLogStore

extension Pages {
    /// The history map's page: a filter form (days, device, trip mode, style) and the map, which `history.js` fills with the
    /// basemap and the history tiles (the form's values go with every tile request); a click on a track opens its
    /// session. `bounds` (south, west, north, east) is where the tracks the filters keep are; nil: none, which the
    /// page says in a line (`filtered`: the filters hide every track).
    static func history(
        tiles: MapTiles?, bounds: [Double]?, filtered: Bool, from: String, to: String, device: String, mode: String,
        style: String
    ) -> String {
        var attributes = #" data-history="\#(escape(HistoryRoutes.tileTemplate))""#
        if let bounds { attributes += #" data-bounds="\#(bounds.map { String($0) }.joined(separator: ","))""# }
        if let tiles { attributes += tiles.attributes }
        let option = { (value: String, label: String) in
            #"<option value="\#(value)"\#(style == value ? " selected" : "")>\#(label)</option>"#
        }
        let modes = ([("", "Any"), ("none", "No mode")] + HistoryFilter.modes.dropFirst().map { ($0, $0) }).map {
            #"<option value="\#($0.0)"\#(mode == $0.0 ? " selected" : "")>\#($0.1)</option>"#
        }.joined()
        let none =
            bounds != nil
            ? ""
            : filtered
                ? #"<p class="muted" id="history-none">No track matches these filters: widen the days or choose another device or mode.</p>"#
                : #"<p class="muted" id="history-none">No tracks yet: record, import or receive one and it shows here.</p>"#
        return page(
            title: "History",
            head: """
                <link rel="stylesheet" href="/lib/leaflet/leaflet.css">
                <script src="/lib/leaflet/leaflet.js" defer></script>
                <script src="/static/basemap.js" defer></script>
                <script src="/static/history.js" defer></script>
                """,
            bodyAttributes: attributes,
            """
            <form class="filter" method="get" action="/history">
            \(dateInput("from", "From", from))
            \(dateInput("to", "To", to))
            <label>Device <input name="device" value="\(escape(device))" size="12"></label>
            <label>Mode <select name="mode">\(modes)</select></label>
            <label>Style <select name="style">\(option("lines", "Lines"))\(option("heat", "Density"))\(option("visited", "Where I have been"))</select></label>
            <button type="submit">Show</button>
            </form>
            <p class="muted">Every track you may see, drawn by gpslog as pictures. Click a track to open its session.</p>
            \(none)
            <div id="map" class="history-map" role="application" aria-label="Map of every track"></div>
            <noscript><p>The map needs JavaScript; <code>gpslog plot --all -o all.svg</code> draws the same tracks.</p>\
            </noscript>
            """)
    }
}
