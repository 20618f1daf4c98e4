// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogTestSupport
import Testing

/// A visit's place name in Overland's visit records: written by `OverlandWriter` (what `upload` and live sending
/// post) and read back by `OverlandPayload` (what `import` and `serve` read).
@Suite(.ownThreads)
struct OverlandVisitNameTests {
    let arrival = Timestamp(milliseconds: 1_714_543_200_000)

    /// One batch body holding the visit's arrival and departure records.
    func body(_ visit: Visit) -> Data {
        var v = visit
        v.key = 7
        let records = OverlandRecord.records(events: [], visits: [v])
        let session = Session(
            key: 1, id: "0190c8a0-0000-7000-8000-000000000000", name: "Day", start: arrival, end: nil, mode: nil)
        return Data(OverlandWriter().batchBody([], records: records, session: session, start: nil, distance: 0))
    }

    @Test func aNamedVisitComesBackNamed() throws {
        let name = "Alm <hut> & \"Kaser\" 🏔 \u{1}"
        let visit = Visit(
            latitude: 46, longitude: 7, horizontalAccuracy: 20, arrival: arrival,
            departure: arrival.adding(milliseconds: 600_000), name: name)
        let data = body(visit)
        let text = String(decoding: data, as: UTF8.self)
        // Beside the other visit properties, escaped as every JSON string gpslog writes.
        #expect(text.contains(#""horizontal_accuracy":20,"name":"Alm <hut> & \"Kaser\" 🏔 \u0001""#), "\(text)")
        let payload = try OverlandPayload(data, source: "batch.json")
        #expect(payload.visits.map(\.visit.name) == [name, name])
        #expect(payload.visits.map(\.visit.departure) == [nil, visit.departure])
    }

    @Test func anUnnamedVisitHasNoNameProperty() throws {
        let data = body(Visit(latitude: 46, longitude: 7, horizontalAccuracy: 20, arrival: arrival, departure: nil))
        #expect(!String(decoding: data, as: UTF8.self).contains(#""name""#))
        #expect(try OverlandPayload(data, source: "batch.json").visits.map(\.visit.name) == [nil])
    }

    /// Another app's `name` that is not text, on a location or a visit, is no name: the payload is not refused for it.
    @Test func aNameThatIsNotTextIsNoName() throws {
        let body = """
            {"locations":[
            {"type":"Feature","geometry":{"type":"Point","coordinates":[7,46]},"properties":{"timestamp":"2024-05-01T06:00:00Z","name":5}},
            {"type":"Feature","geometry":{"type":"Point","coordinates":[7,46]},"properties":{"timestamp":"2024-05-01T06:00:00Z","action":"visit","arrival_date":"2024-05-01T06:00:00Z","departure_date":null,"name":{"a":1}}}
            ]}
            """
        let payload = try OverlandPayload(Data(body.utf8), source: "batch.json")
        #expect(payload.entries.count == 1)
        #expect(payload.visits.map(\.visit.name) == [nil])
    }
}
