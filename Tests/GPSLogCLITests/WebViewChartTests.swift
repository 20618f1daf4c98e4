// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogTestSupport
import Testing

/// Chromium and the libraries the pages load, as `make test` installs them.
private let browserReady =
    FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
    && FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js")
    && FileManager.default.fileExists(atPath: "/usr/share/javascript/dygraphs/dygraph.min.js")

/// The session page's charts in Debian's headless Chromium, read through the DevTools protocol
/// (`Benchmarks/page-time.py --eval`): where the browser laid out their labels, what they say, where lines break.
@Suite(
    .ownThreads,
    .enabled(if: browserReady, "needs chromium, libjs-leaflet and libjs-dygraphs (make test installs them)"))
struct WebViewChartTests {
    static let months = PlotCommandTests.gpx(PlotCommandTests.monthsTrack)

    /// Every axis label of the charts: its text, the box of its text, its own box and its chart's (left, right).
    static let axisLabels = """
        JSON.stringify(Array.from(document.querySelectorAll('.dygraph-axis-label'), (el) => {
          const chart = el.closest('.chart').getBoundingClientRect();
          const range = document.createRange();
          range.selectNodeContents(el);
          const text = range.getBoundingClientRect();
          const box = el.getBoundingClientRect();
          return [el.textContent, text.left, text.right, box.left, box.right, chart.left, chart.right];
        }))
        """

    /// `expression`'s value once the page at `url` is ready, in a browser in `timezone`.
    static func evaluate(_ url: String, _ expression: String, timezone: String = "UTC") throws -> Any? {
        let r = try GPSLogTestSupport.runTool(
            "/usr/bin/env",
            [
                "TZ=\(timezone)", "LANG=en_US.UTF-8", "/usr/bin/python3",
                TestPaths.packageRoot + "/Benchmarks/page-time.py", url, "--timeout", "120", "--eval", expression,
            ])
        let state = try #require(
            try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any], "\(r.output)")
        let text = try #require(state["eval"] as? String, "\(r.output)")
        return try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    /// A served database with the sessions `prepare` made; `body` gets the base URL and the sessions by name.
    static func withServed(
        _ prepare: (String, String) async throws -> Void, _ body: (String, [String: String]) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            try await prepare(db, dir)
            let (serve, base) = try await WebViewTests.serve(db, folder: dir)
            let listed = try WebViewTests.runTool("/usr/bin/curl", ["-s", base + "/api/sessions"])
            let sessions = try #require(
                try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]], "\(listed)")
            var ids: [String: String] = [:]
            for s in sessions { ids[s["name"] as? String ?? ""] = s["id"] as? String }
            try await body(base, ids)
            _ = serve
        }
    }

    static func importing(_ files: [String: String], sample: Bool = false) -> (String, String) async throws -> Void {
        { db, dir in
            if sample {
                let r = try await runGPSLogAsync(["import", "--sample"], database: db, folder: dir)
                try #require(r.status == 0, "\(r.stderr)")
            }
            for (name, text) in files {
                try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
                let r = try await runGPSLogAsync(["import", dir + "/" + name], database: db, folder: dir)
                try #require(r.status == 0, "\(r.stderr)")
            }
        }
    }

    /// `09:48:30` was cut to `09:48:3` by its 60 px box; a chart over months needs `05-08 15:34`. Every label's
    /// text lies inside its box and inside its chart.
    @Test(.timeLimit(.minutes(5)))
    func everyAxisLabelFitsInsideItsChart() async throws {
        try await Self.withServed(Self.importing(["months.gpx": Self.months], sample: true)) { base, ids in
            for name in ["IJsselmeer sail (sample)", "Months"] {
                let id = try #require(ids[name])
                let labels = try #require(
                    try Self.evaluate(base + "/sessions/" + id, Self.axisLabels) as? [[Any]], "\(name)")
                #expect(labels.count > 6, "\(name): \(labels)")
                for label in labels {
                    let text = label[0] as? String ?? ""
                    let n = label.dropFirst().map { ($0 as? NSNumber)?.doubleValue ?? .nan }
                    let (textLeft, textRight, boxLeft, boxRight, chartLeft, chartRight) = (
                        n[0], n[1], n[2], n[3], n[4], n[5]
                    )
                    #expect(
                        textLeft >= boxLeft - 0.5 && textRight <= boxRight + 0.5,
                        "\(name): '\(text)' cut by its box: \(n)")
                    #expect(
                        textLeft >= chartLeft - 0.5 && textRight <= chartRight + 0.5,
                        "\(name): '\(text)' outside its chart: \(n)")
                }
            }
        }
    }

    static func json(_ url: String) throws -> [String: Any] {
        let text = try WebViewTests.runTool("/usr/bin/curl", ["-s", url])
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    /// A walk whose GPX has no speed: its chart showed "No speed in this session." in an empty block; now the
    /// speeds come from the positions (the server's `SpeedDeriver`) and the chart says so. The sample's receiver
    /// gave speeds: those are kept.
    @Test(.timeLimit(.minutes(5)))
    func aSessionWithoutSpeedsGetsThemFromItsPositionsAndSaysSo() async throws {
        try await Self.withServed(Self.importing(["walk.gpx": WebViewTests.walk], sample: true)) { base, ids in
            let walk = try #require(ids["Walk"])
            let window = try Self.json(base + "/api/sessions/\(walk)/entries")
            #expect(window["speedDerived"] as? Bool == true)
            let entries = try #require(window["entries"] as? [[String: Any]])
            try #require(entries.count == 6)
            // A minute from 46.5000, 7.5000 to 46.5005, 7.5005; none for the first point, nor across the segment
            // start before the fourth.
            let metres = Geo.distance(lat1: 46.5, lon1: 7.5, lat2: 46.5005, lon2: 7.5005)
            #expect(abs((entries[1]["speed"] as? Double ?? 0) - metres / 60) < 0.001, "\(entries[1])")
            #expect(entries[0]["speed"] == nil && entries[3]["speed"] == nil, "\(entries)")
            let page = try WebViewTests.dom(base + "/sessions/" + walk)
            #expect(page.contains("data-ready=\"true\""), "\(page.prefix(3000))")
            #expect(WebViewTests.attribute("points", of: "chart-speed", in: page) == "6")
            #expect(WebViewTests.attribute("derived", of: "chart-speed", in: page) == "true")
            #expect(page.contains("Speed derived from positions"))

            let sample = try #require(ids["IJsselmeer sail (sample)"])
            let real = try Self.json(base + "/api/sessions/\(sample)/entries")
            #expect(real["speedDerived"] == nil)
            let speeds = (real["entries"] as? [[String: Any]] ?? []).compactMap { $0["speed"] as? Double }
            #expect(speeds.count > 100 && speeds.allSatisfy { $0 < 10 }, "the receiver's, a few m/s")
            let samplePage = try WebViewTests.dom(base + "/sessions/" + sample)
            #expect(samplePage.contains("data-ready=\"true\"") && !samplePage.contains("Speed derived from positions"))
        }
    }

    /// A log over months in one GPX segment: the charts joined 16 February to 8 May with a straight line. The
    /// API marks the point after the gap and the charts break their lines there (an empty row between).
    @Test(.timeLimit(.minutes(5)))
    func chartsBreakTheirLinesAcrossAGap() async throws {
        try await Self.withServed(Self.importing(["months.gpx": Self.months])) { base, ids in
            let id = try #require(ids["Months"])
            let entries = try #require(
                try Self.json(base + "/api/sessions/\(id)/entries")["entries"] as? [[String: Any]])
            #expect(entries.map { $0["gap"] as? Bool ?? false } == [false, false, false, true, false, false])
            let page = try WebViewTests.dom(base + "/sessions/" + id)
            #expect(page.contains("data-ready=\"true\""), "\(page.prefix(3000))")
            for chart in ["chart-speed", "chart-altitude"] {
                #expect(WebViewTests.attribute("points", of: chart, in: page) == "6", "\(chart)")
                #expect(WebViewTests.attribute("gaps", of: chart, in: page) == "1", "\(chart)")
            }
        }
    }

    /// In a browser in New York (UTC-4 in August) the charts showed local times (`05:48`) unmarked, and the
    /// sessions page's date fields the locale's format: the charts now say UTC and show it in ISO 8601, and the
    /// date fields take `YYYY-MM-DD`, UTC.
    @Test(.timeLimit(.minutes(5)))
    func timesOnThePagesAreUTCInISO8601WhateverTheBrowsersZone() async throws {
        try await Self.withServed(Self.importing(["months.gpx": Self.months], sample: true)) { base, ids in
            let id = try #require(ids["IJsselmeer sail (sample)"])
            let labels = try #require(
                try Self.evaluate(base + "/sessions/" + id, Self.axisLabels, timezone: "America/New_York") as? [[Any]])
            let times = labels.compactMap { $0.first as? String }.filter { $0.contains(":") }
            #expect(!times.isEmpty && times.allSatisfy { $0.hasPrefix("09:4") || $0.hasPrefix("09:5") }, "\(times)")
            let months = try #require(ids["Months"])
            let dated = try #require(
                try Self.evaluate(base + "/sessions/" + months, Self.axisLabels, timezone: "America/New_York")
                    as? [[Any]])
            let days = dated.compactMap { $0.first as? String }.filter { $0.contains("-") && $0.count >= 5 }
            #expect(
                !days.isEmpty
                    && days.allSatisfy {
                        $0.range(of: #"^(\d{4}-)?\d{2}-\d{2}( \d{2}:\d{2})?$"#, options: .regularExpression) != nil
                    },
                "\(dated)")
            let session = try WebViewTests.runTool("/usr/bin/curl", ["-s", base + "/sessions/" + id])
            #expect(session.contains("Times on the charts are UTC"))

            let list = try WebViewTests.runTool("/usr/bin/curl", ["-s", base + "/"])
            #expect(!list.contains("type=\"date\"") && list.contains("placeholder=\"YYYY-MM-DD\""), "\(list)")
            #expect(list.contains("From (UTC)") && list.contains("To (UTC)"))
            let day = try WebViewTests.runTool("/usr/bin/curl", ["-s", base + "/?from=2018-08-20&to=2018-08-20"])
            #expect(day.contains("1 session, newest first") && day.contains("IJsselmeer"), "\(day)")
        }
    }
}
