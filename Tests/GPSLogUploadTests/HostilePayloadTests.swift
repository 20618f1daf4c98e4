// SPDX-License-Identifier: MIT
import AsyncHTTPClient
import Foundation
import GPSLogTestSupport
import NIOCore
import Testing

/// Hardening findings 3, 4 and 9 through `serve` and `import`: JSON booleans were read as numbers, a refused 16 MB
/// batch took the receiver from 38 MB to 867 MB (eight at once: 1.8 GB, never given back), year 0000 and `tst: 1.5`
/// were stored, and fixes at 0, 0 made an 11,602 km session.
@Suite(.ownThreads, .serialized) struct HostilePayloadTests {
    static func feature(
        lon: String = "5.3", lat: String = "52.1", time: String = #""2026-01-01T00:00:01Z""#, extra: String = ""
    ) -> String {
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{"timestamp":\#(time)\#(extra)}}"#
    }

    static func post(_ body: String, to url: String) async throws -> (Int, String) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")  // as phones send it
        request.headers.add(name: "Authorization", value: "Bearer " + UploadTests.token)
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    @Test func numbersMustBeNumbersAndTimesAndPositionsPlausible() async throws {
        try await withTemporaryDirectory { dir in
            let serve = try ServeProcess(folder: dir, token: UploadTests.token)
            let refused: [(String, String)] = [
                (#"{"locations":[\#(Self.feature(lat: "false"))]}"#, "locations[0].geometry.coordinates[1]"),
                (#"{"locations":[\#(Self.feature(extra: #","speed":true"#))]}"#, "locations[0].properties.speed"),
                (
                    #"{"locations":[\#(Self.feature(extra: #","altitude":"high""#))]}"#,
                    "locations[0].properties.altitude"
                ),
                (#"{"locations":[\#(Self.feature(time: "null"))]}"#, "locations[0].properties.timestamp"),
                (
                    #"{"locations":[\#(Self.feature(time: #""0000-01-01T00:00:00Z""#))]}"#,
                    "locations[0].properties.timestamp"
                ),
                (#"{"locations":[\#(Self.feature(lon: "0", lat: "0"))]}"#, "locations[0].geometry.coordinates"),
                (#"{"_type":"location","lat":false,"lon":5.3,"tst":1700000000}"#, "lat"),
                (#"{"_type":"location","lat":52.1,"lon":5.3,"tst":true}"#, "tst"),
                (#"{"_type":"location","lat":52.1,"lon":5.3,"tst":1.5}"#, "tst"),
                (#"{"_type":"location","lat":52.1,"lon":5.3,"tst":"1700000000"}"#, "tst"),
            ]
            for (body, field) in refused {
                let (status, text) = try await Self.post(body, to: serve.url)
                #expect(status == 422 && text.contains(field), "\(body) -> \(status) \(text)")
            }
            #expect(try serve.points().isEmpty)
            // What is still taken: a null optional field, and the same location with numbers.
            let (status, _) = try await Self.post(
                #"{"locations":[\#(Self.feature(extra: #","speed":null,"altitude":1.5"#))]}"#, to: serve.url)
            let stored = try serve.points().count
            #expect(status == 200 && stored == 1)

            // import names the file, the line and the field.
            let file = dir + "/bad.jsonl"
            try
                #"{"_type":"location","lat":52.1,"lon":5.3,"tst":1700000000}\#n{"_type":"location","lat":52.1,"lon":5.3,"tst":true}\#n"#
                .write(toFile: file, atomically: true, encoding: .utf8)
            let r = try runGPSLog(["import", file], database: dir + "/import.sqlite")
            #expect(r.status != 0 && r.stderr.contains("bad.jsonl:2: tst"), "\(r.stderr)")
        }
    }

    /// The receiver's memory for a batch stays a small multiple of the batch, eight at once are read a few at a
    /// time, and afterwards the process is back near its idle size.
    @Test func largeBatchesCostASmallMultipleOfTheirSizeAndMemoryIsGivenBack() async throws {
        try await withTemporaryDirectory { dir in
            let serve = try ServeProcess(folder: dir, token: UploadTests.token)
            let pid = serve.process.process.processIdentifier
            func memory(_ key: String) throws -> Int {
                let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
                let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(key + ":") })
                return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
            }
            // 80,000 locations, about 16 MB, the last one invalid: refused whole.
            var features = (0..<80_000).map { i in
                Self.feature(
                    lon: String(5.3 + Double(i) * 1e-6), time: "\"2026-01-01T00:00:00Z\"",
                    extra: #","speed":3.5,"horizontal_accuracy":5,"altitude":1.5,"device_id":"phone""#)
            }
            features[features.count - 1] = Self.feature(time: #""not a time""#)
            let batch = #"{"locations":["# + features.joined(separator: ",") + "]}"
            #expect(batch.utf8.count > 15_000_000 && batch.utf8.count < 16 << 20)

            let idle = try memory("VmRSS")
            let (status, text) = try await Self.post(batch, to: serve.url)
            #expect(status == 422 && text.contains("locations[79999].properties.timestamp"))
            let one = try memory("VmHWM") - idle
            #expect(one < 8 * batch.utf8.count, "one batch took \(one >> 20) MB")

            let url = serve.url
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await Self.post(batch, to: url).0 } }
                for try await status in group { #expect(status == 422) }
            }
            let eight = try memory("VmHWM") - idle
            #expect(eight < 20 * batch.utf8.count, "eight batches took \(eight >> 20) MB")
            let after = try memory("VmRSS") - idle
            #expect(after < 32 << 20, "\(after >> 20) MB more than idle after the batches")
            #expect(try serve.points().isEmpty)
        }
    }
}
