// SPDX-License-Identifier: MIT
import AsyncHTTPClient
import Foundation
import GPSLogTestSupport
import NIOCore
import Testing

/// OwnTracks' HTTP mode posts transitions and waypoints to `serve` as it posts locations: stored in the device's
/// session and records (`gpslog events`, `gpslog devices`), once however often they are posted; a malformed one
/// gets a 422 naming its field and stores nothing.
@Suite(.ownThreads, .serialized)
struct ServeOwnTracksHTTPTests {
    @Test func transitionsAndWaypointsArriveOnce() async throws {
        try await withTemporaryDirectory { dir in
            let serve = try ServeProcess(folder: dir, token: UploadTests.token)
            let basic = "Basic " + Data("jane:\(UploadTests.token)".utf8).base64EncodedString()
            func post(_ body: String) async throws -> (Int, String) {
                var request = HTTPClientRequest(url: serve.url + "pub")
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/json")  // as phones send it
                for (k, v) in [("Authorization", basic), ("X-Limit-U", "jane"), ("X-Limit-D", "phone")] {
                    request.headers.add(name: k, value: v)
                }
                request.body = .bytes(ByteBuffer(string: body))
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
            }
            let waypoint =
                #"{"_type":"waypoint","desc":"Office","lat":52.37,"lon":4.89,"rad":120,"tst":1709300000,"rid":"a1b2c3"}"#
            let transition =
                #"{"_type":"transition","event":"enter","tst":1709310000,"wtst":1709300000,"acc":8,"lat":52.3702,"lon":4.8901,"desc":"Office","rid":"a1b2c3","t":"c","tid":"jp"}"#
            for _ in 0..<2 {
                #expect(try await post(waypoint) == (200, "[]"))
                #expect(try await post(transition) == (200, "[]"))
            }
            let (status, error) = try await post(
                #"{"_type":"transition","event":"leave","tst":1709320000,"wtst":1709300000,"lat":52.37,"lon":400,"desc":"Office"}"#
            )
            #expect(status == 422 && error.contains("lon") && error.hasPrefix(#"{"error":"#), "\(status) \(error)")

            let events = try runGPSLog(["events", "jane/phone", "--json"], database: serve.database)
            #expect(events.status == 0, "\(events.stderr)")
            let list = try #require(
                try JSONSerialization.jsonObject(with: Data(events.stdout.utf8)) as? [[String: Any]])
            #expect(list.count == 1, "\(events.stdout)")
            #expect(list.first?["region"] as? String == "Office" && list.first?["rid"] as? String == "a1b2c3")
            #expect(list.first?["event"] as? String == "enter" && list.first?["trigger"] as? String == "c")
            #expect(list.first?["time"] as? String == "2024-03-01T16:20:00Z")

            let devices = try runGPSLog(["devices", "--json", "--waypoints"], database: serve.database)
            let found = try #require(
                try JSONSerialization.jsonObject(with: Data(devices.stdout.utf8)) as? [[String: Any]])
            #expect(found.count == 1 && found.first?["device"] as? String == "jane/phone", "\(devices.stdout)")
            #expect(found.first?["waypoints"] as? Int == 1 && found.first?["session"] as? String == "jane/phone")
            let listed = try #require((found.first?["waypointList"] as? [[String: Any]])?.first)
            #expect(listed["rid"] as? String == "a1b2c3" && listed["radius"] as? Double == 120)
            // A location-less session: transitions only, no track points.
            #expect(try serve.points().isEmpty)
            #expect(serve.process.stderr.components(separatedBy: "(already there)").count - 1 == 2)
        }
    }
}
