// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// A visit's place name reaching `serve` after the visit: Overland sends a visit's arrival record, then the same
/// visit again when it ends; a sender that names the place meanwhile (gpslog's own `upload` after `visit rename`)
/// fills in the stored visit's name, and a name given on the server stays.
@Suite(.ownThreads)
struct ServeVisitNameTests {
    static func visitRecord(departure: String?, name: String?) -> String {
        let departed = departure.map { "\"\($0)\"" } ?? "null"
        let named = name.map { #","name":"\#($0)""# } ?? ""
        return #"""
            {"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[7.5,46.5]},"properties":{"timestamp":"2024-05-01T06:00:00Z","action":"visit","arrival_date":"2024-05-01T06:00:00Z","departure_date":\#(departed),"horizontal_accuracy":20\#(named),"device_id":"hiker"}}]}
            """#
    }

    static func visits(_ db: String, _ dir: String) async throws -> [[String: Any]] {
        let r = try await runGPSLogAsync(["visits", "hiker", "--json"], database: db, folder: dir)
        #expect(r.status == 0, "\(r.stderr)")
        return try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
    }

    @Test func aNameSentLaterFillsTheVisitAndOneGivenHereStays() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/serve.sqlite"
            let (serve, port) = try await LoopbackHTTP.serve(["--no-view"], database: db, folder: dir + "/serve")
            func post(_ body: String) async throws {
                let answer = try await LoopbackHTTP.fetch(
                    "POST", "/", port: port, headers: [("Content-Type", "application/json")], body: body)
                #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self)) \(serve.stderr)")
            }
            try await post(Self.visitRecord(departure: nil, name: nil))
            var visits = try await Self.visits(db, dir)
            #expect(visits.count == 1 && visits.first?["name"] == nil, "\(visits)")

            // The visit again, ended and named by its sender: one visit, with both.
            try await post(Self.visitRecord(departure: "2024-05-01T07:00:00Z", name: "Alp hut"))
            visits = try await Self.visits(db, dir)
            #expect(visits.count == 1, "\(visits)")
            #expect(visits.first?["name"] as? String == "Alp hut", "\(visits)")
            #expect(visits.first?["departure"] as? String == "2024-05-01T07:00:00Z", "\(visits)")

            // Renamed here: a later record with the sender's name does not undo it.
            let id = try #require(visits.first?["id"] as? Int)
            let renamed = try await runGPSLogAsync(
                ["visit", "rename", String(id), "Summit"], database: db, folder: dir)
            #expect(renamed.status == 0, "\(renamed.stderr)")
            try await post(Self.visitRecord(departure: "2024-05-01T07:00:00Z", name: "Alp hut"))
            visits = try await Self.visits(db, dir)
            #expect(visits.map { $0["name"] as? String } == ["Summit"], "\(visits)")
        }
    }
}
