// SPDX-License-Identifier: MIT
import AsyncHTTPClient
import Foundation
import GPSLogTestSupport
import NIOCore
import Testing

/// Hardening findings 6 and 8 through `serve`: a device_id holding a line feed forged a log line, ESC and NUL
/// reached the terminal raw in `gpslog sessions`, and a 100 KB device_id became a 100 KB session name padding every
/// row of the table.
@Suite(.ownThreads, .serialized) struct HostileTextTests {
    static func batch(deviceID: String, second: Int) -> String {
        let id = String(
            decoding: try! JSONSerialization.data(withJSONObject: [deviceID], options: [.fragmentsAllowed]),
            as: UTF8.self)
        return
            #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[5.3,52.1]},"properties":{"timestamp":"2026-01-01T00:00:\#(String(format: "%02d", second))Z","device_id":\#(id.dropFirst().dropLast())}}]}"#
    }

    func post(_ body: String, to url: String) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")  // as phones send it
        request.headers.add(name: "Authorization", value: "Bearer " + UploadTests.token)
        request.body = .bytes(ByteBuffer(string: body))
        return Int(try await HTTPClient.shared.execute(request, timeout: .seconds(10)).status.code)
    }

    @Test func controlCharactersNeverReachALogOrTheTerminalAndLongNamesAreCut() async throws {
        try await withTemporaryDirectory { dir in
            let serve = try ServeProcess(folder: dir, token: UploadTests.token)
            let forged =
                "phone\n2026-01-01T00:00:00+0000 critical gpslog.serve: forged line \u{1B}[31mred\u{1B}[0m\u{0}\u{9B}2J\u{202E}"
            #expect(try await post(Self.batch(deviceID: forged, second: 1), to: serve.url) == 200)
            let long = String(repeating: "x", count: 100_000)
            #expect(try await post(Self.batch(deviceID: long, second: 2), to: serve.url) == 200)

            // The log: one line per event, the device id's controls escaped.
            #expect(waitUntil(timeout: 10) { serve.process.stderr.contains("forged line") })
            let log = serve.process.stderr
            #expect(
                !log.contains("\u{1B}") && !log.contains("\u{0}") && !log.contains("\u{9B}")
                    && !log.contains("\u{202E}"))
            #expect(!log.contains("\n2026-01-01T00:00:00+0000 critical"), "a forged line: \(log)")
            #expect(log.contains(#"phone\n2026-01-01T00:00:00+0000 critical gpslog.serve: forged line \u001B[31mred"#))

            // The table: escaped, and no column wider than 40 characters.
            let table = try runGPSLog(["sessions"], database: serve.database)
            try #require(table.status == 0, "\(table.stderr)")
            #expect(
                !table.stdout.contains("\u{1B}") && !table.stdout.contains("\u{0}") && !table.stdout.contains("\u{9B}"))
            let lines = table.stdout.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
            #expect(lines.count == 3, "header and two sessions: \(table.stdout)")
            #expect(lines.allSatisfy { $0.count < 160 }, "\(lines.map(\.count))")

            // Stored names are capped; JSON keeps the escapes as JSON does.
            let json = try runGPSLog(["sessions", "--json"], database: serve.database)
            let list = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            let names = list.compactMap { $0["name"] as? String }
            #expect(names.contains(forged), "JSON output round-trips the name")
            #expect(names.contains { $0.count == 200 && $0.hasSuffix("…") })
            #expect(!json.stdout.contains("\u{1B}") && !json.stdout.contains("\u{9B}"))

            // `show` and an error that lists session names are escaped too.
            let shown = try runGPSLog(["show", "phone"], database: serve.database)
            #expect(
                !shown.stdout.contains("\u{1B}") && !shown.stderr.contains("\u{1B}") && !shown.stderr.contains("\u{0}"))
            #expect(shown.stderr.contains(#"phone\n2026"#), "\(shown.stderr)")
        }
    }
}
