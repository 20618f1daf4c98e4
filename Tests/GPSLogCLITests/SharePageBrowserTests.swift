// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// Chromium and Leaflet, as `make test` installs them.
private let browserReady =
    FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
    && FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js")

/// A `gpslog share` link in headless Chromium, read through the DevTools protocol (`Benchmarks/page-time.py --eval`):
/// the page draws the shared session's track, and from that page (the browser's own requests, with whatever the link
/// left it) nothing else opens.
@Suite(.ownThreads, .enabled(if: browserReady, "needs chromium and libjs-leaflet (make test installs them)"))
struct SharePageBrowserTests {
    @Test(.timeLimit(.minutes(8)))
    func aShareLinkInABrowserDrawsItsSessionAndOpensNothingElse() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            // A user, so the view needs a login; the walk is shared, the hike is not.
            try await ViewAccountsTests.addUser("alice", "alice's secret 1", db: db, dir: dir)
            try WebViewTests.walk.write(toFile: dir + "/walk.gpx", atomically: true, encoding: .utf8)
            for file in [dir + "/walk.gpx", WebViewTests.hike] {
                let r = try await runGPSLogAsync(["import", file], database: db, folder: dir)
                try #require(r.status == 0, "\(r.stderr)")
            }
            let listed = try await runGPSLogAsync(["sessions", "--json"], database: db, folder: dir)
            let sessions = try #require(
                try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]], "\(listed.stdout)"
            )
            let walk = try #require(sessions.first { $0["name"] as? String == "Walk" })
            let hike = try #require(sessions.first { $0["name"] as? String != "Walk" })
            let walkID = try #require(walk["id"] as? String)
            let hikeID = try #require(hike["id"] as? String)
            let hikeName = try #require(hike["name"] as? String)

            let (serve, base) = try await WebViewTests.serve(db, folder: dir)
            defer { AccountsTests.stop(serve) }
            let shared = try await runGPSLogAsync(["share", walkID, "--base-url", base], database: db, folder: dir)
            try #require(shared.status == 0, "\(shared.stderr)")
            let link = try #require(shared.stdout.split(separator: "\n").last.map(String.init))
            try #require(link.hasPrefix(base + "/s/"), "\(link)")
            let prefix = String(link.dropFirst(base.count))

            // Under the link and beside it: another session, the history, the stats, a day, the API.
            var probes: [String] = []
            for path in [
                "/sessions/\(hikeID)", "/history", "/stats", "/day/2024-05-01", "/api/sessions",
                "/api/sessions/\(hikeID)", "/api/sessions/\(hikeID)/track.geojson", "/api/day/2024-05-01",
            ] {
                probes += [prefix + path, path]
            }
            probes += ["/", "/sessions/\(walkID)", "/api/sessions/\(walkID)/track.geojson"]
            let paths = String(decoding: try JSONSerialization.data(withJSONObject: probes), as: UTF8.self)
            // Synchronous requests: page-time.py reads the expression's value at once (no promise is awaited).
            let expression = """
                JSON.stringify({
                  vertices: document.getElementById('map').dataset.vertices,
                  segments: document.getElementById('map').dataset.segments,
                  html: document.documentElement.outerHTML,
                  fetched: performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname),
                  probes: \(paths).map((path) => {
                    const x = new XMLHttpRequest();
                    x.open('GET', path, false);
                    x.send();
                    return [path, x.status, new URL(x.responseURL).pathname, x.responseText];
                  }),
                })
                """
            let state = try #require(
                try WebViewChartTests.evaluate(link, expression) as? [String: Any], "the page got ready")

            // The shared walk is drawn: both its segments, its six points.
            #expect(state["vertices"] as? String == "6" && state["segments"] as? String == "2", "\(state)")
            let html = state["html"] as? String ?? ""
            #expect(!html.contains(hikeName), "the other session is not named on the page")
            // Everything the page itself fetched from serve came from under the link (or the static files).
            let fetched = (state["fetched"] as? [String] ?? []).filter { $0.hasPrefix("/api") || $0.contains("/api/") }
            #expect(!fetched.isEmpty && fetched.allSatisfy { $0.hasPrefix(prefix + "/api/") }, "\(fetched)")

            let answers = try #require(state["probes"] as? [[Any]])
            #expect(answers.count == probes.count)
            for answer in answers {
                let path = answer[0] as? String ?? ""
                let status = answer[1] as? Int ?? 0
                let landed = answer[2] as? String ?? ""
                let body = answer[3] as? String ?? ""
                // 404 under the link; beside it the login page (a page) or 401 (the API, which has no page).
                let refused = status == 404 || status == 401 || (status == 200 && landed == "/login")
                #expect(refused, "\(path): \(status) at \(landed)")
                #expect(
                    !body.contains(hikeName) && !body.contains("46.5005"), "\(path) tells nothing: \(body.prefix(200))")
            }
            #expect(!serve.stderr.contains(String(prefix.dropFirst(3))), "the link's token stays out of the log")
        }
    }
}
