// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// A session with nothing in it yet (a recording before its first fix is committed, as the soak's readers meet it):
/// every page and API route of the view answers it, and its picture says there is nothing to plot (it was a 500).
@Suite(.ownThreads) struct WebViewEmptySessionTests {
    @Test(.timeLimit(.minutes(5)))
    func everyRouteAnswersASessionWithoutEntries() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let id: String
            do {
                // What `record` writes when it starts: the session, and no entry until the first commit.
                let store = try Store(path: db)
                defer { store.close() }
                id = try store.createSession(name: "Just started", start: Timestamp(milliseconds: 1_764_000_000_000)).id
            }
            let (serve, port) = try await LoopbackHTTP.serve(["--tiles", "none"], database: db, folder: dir + "/serve")
            defer { if !serve.process.isRunning { Issue.record("serve ended: \(serve.stderr)") } }

            let api = "/api/sessions/\(id)"
            for path in [
                "/", "/sessions/\(id)", api, api + "/track.geojson", api + "/track.geojson?tolerance=5",
                api + "/entries", api + "/marks",
            ] {
                let answer = try await LoopbackHTTP.fetch("GET", path, port: port)
                #expect(answer.status == 200, "\(path): \(answer.status) \(answer.text.prefix(200))")
            }
            let plot = try await LoopbackHTTP.fetch("GET", api + "/plot.svg", port: port)
            #expect(plot.status == 200, "\(plot.status) \(plot.text.prefix(200))")
            #expect(plot.header("Content-Type") == "image/svg+xml")
            #expect(plot.text.contains("Nothing to plot yet") && plot.text.hasPrefix("<svg "))
            #expect(plot.text.hasSuffix("</svg>\n"))
            #expect(!serve.stderr.contains("failed"), "\(serve.stderr)")
        }
    }
}
