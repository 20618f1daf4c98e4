// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// A session with many marks in the web view: its page lists one page of them with a link to the next, and
/// `/api/sessions/ID/marks` answers a bounded page with a `Link` to the next, so no answer grows with the session
/// (a million marks made every page request cost 0.7 GB, and `/marks` a 131 MB body), and the pages reach every mark.
@Suite(.ownThreads) struct WebViewMarkPagesTests {
    static let markCount = 50_000

    /// A GPX of a short track and `count` waypoints a second apart (imported as the session's marks).
    static func gpx(marks count: Int) -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">

            """
        let start = Date(timeIntervalSince1970: 1_714_557_600)  // 2024-05-01 10:00 UTC
        let format = ISO8601DateFormatter()
        for i in 0..<count {
            let lat = 46.5 + Double(i % 1000) * 0.00001
            text += #"<wpt lat="\#(lat)" lon="7.5"><time>\#(format.string(from: start + Double(i)))</time>"#
            text += "<name>Mark \(i)</name></wpt>\n"
        }
        text += "<trk><name>Many marks</name><trkseg>\n"
        for i in stride(from: 0, through: count, by: max(1, count / 10)) {
            text += #"<trkpt lat="46.5" lon="\#(7.5 + Double(i) * 0.000001)"><time>"#
            text += "\(format.string(from: start + Double(i)))</time></trkpt>\n"
        }
        return text + "</trkseg></trk></gpx>\n"
    }

    @Test(.timeLimit(.minutes(10)))
    func theMarksComeInBoundedPagesThatReachEveryMark() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            try Self.gpx(marks: Self.markCount).write(toFile: dir + "/marks.gpx", atomically: true, encoding: .utf8)
            let imported = try await runGPSLogAsync(["import", dir + "/marks.gpx"], database: db, folder: dir)
            try #require(imported.status == 0, "\(imported.stderr)")
            let (serve, port) = try await LoopbackHTTP.serve(["--tiles", "none"], database: db, folder: dir + "/serve")
            defer { if !serve.process.isRunning { Issue.record("serve ended: \(serve.stderr)") } }

            let sessions = try await LoopbackHTTP.fetch("GET", "/api/sessions", port: port)
            let list = try JSONSerialization.jsonObject(with: Data(sessions.body)) as? [[String: Any]] ?? []
            let session = try #require(list.first { ($0["marks"] as? Int) == Self.markCount }, "\(sessions.text)")
            let id = try #require(session["id"] as? String)

            // The session's page: one page of marks (500), a link to the next, and a bounded size.
            let page = try await LoopbackHTTP.fetch("GET", "/sessions/\(id)", port: port)
            #expect(page.status == 200)
            #expect(page.body.count < 200_000, "the page is \(page.body.count) bytes")
            #expect(page.text.components(separatedBy: "data-mark-lat=").count - 1 == 500)
            let next = try #require(page.text.firstMatch(of: /href="([^"]*\?marks=[0-9:]+)#marks" rel="next"/)?.1)
            let second = try await LoopbackHTTP.fetch("GET", String(next), port: port)
            #expect(second.status == 200 && second.text.contains(">Mark 500<") && !second.text.contains(">Mark 499<"))
            #expect(second.text.contains("First marks"))

            // The API: a bounded first page with a Link to the next; the pages together are every mark, once, in order.
            let first = try await LoopbackHTTP.fetch("GET", "/api/sessions/\(id)/marks", port: port)
            #expect(first.status == 200)
            #expect(first.body.count < 300_000, "the first page is \(first.body.count) bytes")
            let firstMarks = try JSONSerialization.jsonObject(with: Data(first.body)) as? [[String: Any]] ?? []
            #expect(firstMarks.count == 1_000)
            #expect(first.header("Link")?.contains(#"rel="next""#) == true)

            var labels: [String] = []
            var url: String? = "/api/sessions/\(id)/marks?limit=10000"
            var pages = 0
            while let current = url {
                let answer = try await LoopbackHTTP.fetch("GET", current, port: port)
                try #require(answer.status == 200, "\(current): \(answer.status) \(answer.text.prefix(200))")
                #expect(answer.body.count < 2_000_000, "a page of \(answer.body.count) bytes")
                let marks = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [[String: Any]] ?? []
                labels += marks.compactMap { $0["label"] as? String }
                url = answer.header("Link")?.firstMatch(of: /<([^>]+)>; rel="next"/).map { String($0.1) }
                pages += 1
                try #require(pages <= 10, "the pages do not end")
            }
            #expect(pages == 5)
            #expect(labels == (0..<Self.markCount).map { "Mark \($0)" }, "\(labels.count) marks, in order")

            // Bad paging parameters are a clear 400.
            for query in ["limit=0", "limit=10001", "limit=x", "after=yesterday"] {
                let answer = try await LoopbackHTTP.fetch("GET", "/api/sessions/\(id)/marks?\(query)", port: port)
                #expect(answer.status == 400 && answer.text.contains("error"), "\(query): \(answer.text)")
            }
        }
    }
}
