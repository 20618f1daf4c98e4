// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// Which stored visits the timeline shows as one place: those that touch or overlap in time at the same place
/// (their circles, of their accuracy and at least 50 m, meet), and no others.
@Suite(.ownThreads)
struct DayTimelineTests {
    static let t0: Int64 = 1_714_543_200_000

    /// A visit `metresEast` of (46, 7), from minute `from` to minute `to` (nil: still there).
    static func visit(_ key: Int64, east metresEast: Double, _ from: Int64, _ to: Int64?, accuracy: Double = 10)
        -> (visit: Visit, session: String)
    {
        let lon = 7 + metresEast / (111_320 * cos(46 * Double.pi / 180))
        return (
            Visit(
                key: key, latitude: 46, longitude: lon, horizontalAccuracy: accuracy,
                arrival: Timestamp(milliseconds: t0 + from * 60_000),
                departure: to.map { Timestamp(milliseconds: t0 + $0 * 60_000) }), "s"
        )
    }

    @Test func touchingVisitsAtThePlaceMergeAndOthersDoNot() {
        // A slow walk: each visit starts where the last ended, 50 m on.
        var walk: [(visit: Visit, session: String)] = []
        for i in 0..<6 {
            let n = Int64(i)
            walk.append(Self.visit(n + 1, east: Double(i) * 50, n * 8, (n + 1) * 8))
        }
        var places: [DayTimeline.Place] = DayTimeline.places(walk.reversed())
        #expect(places.count == 1)
        #expect(places[0].visits == [1, 2, 3, 4, 5, 6] && places[0].id == 1)
        #expect(places[0].arrival.milliseconds == Self.t0 && places[0].departure?.milliseconds == Self.t0 + 48 * 60_000)

        // A minute between them, or 150 m apart with good accuracy: two places.
        places = DayTimeline.places([Self.visit(1, east: 0, 0, 10), Self.visit(2, east: 20, 11, 20)])
        #expect(places.map { $0.visits } == [[1], [2]])
        places = DayTimeline.places([Self.visit(1, east: 0, 0, 10), Self.visit(2, east: 150, 10, 20)])
        #expect(places.map { $0.visits } == [[1], [2]])
        // ... unless their accuracy reaches that far.
        places = DayTimeline.places([
            Self.visit(1, east: 0, 0, 10, accuracy: 80), Self.visit(2, east: 150, 10, 20, accuracy: 80),
        ])
        #expect(places.map { $0.visits } == [[1, 2]])
        // Overlapping ones merge; one still there keeps the place open.
        places = DayTimeline.places([Self.visit(1, east: 0, 0, 30), Self.visit(2, east: 10, 20, nil)])
        #expect(places.map { $0.visits } == [[1, 2]] && places[0].departure == nil)
        // The name comes from whichever piece has one.
        var named = Self.visit(3, east: 5, 10, 20)
        named.visit.name = "Hut"
        places = DayTimeline.places([Self.visit(1, east: 0, 0, 10), named])
        #expect(places.count == 1 && places[0].name == "Hut")
    }

    @Test func daysAreCheckedDates() {
        #expect(DayTimeline.midnight(of: "2024-05-01")?.milliseconds == Self.t0 - 6 * 3_600_000)
        for bad in ["2024-02-30", "2024-5-1", "24-05-01", "2024-05-01T00:00:00Z", "today", ""] {
            #expect(DayTimeline.midnight(of: bad) == nil, "\(bad)")
        }
        #expect(DayTimeline.day("2024-03-01", plus: -1) == "2024-02-29")
        #expect(DayTimeline.day("2024-12-31", plus: 1) == "2025-01-01")
    }
}

extension DayTimelineTests {
    /// A place with no departure whose session has ended says when the recording ended (the recorder never saw it
    /// left), once that is past the live window; a session still recording, or one ended moments ago (a device
    /// `serve` receives from ends its session at its last location), leaves it still there.
    @Test func aStayTheRecordingEndedInSaysWhen() {
        let end = Timestamp(milliseconds: Self.t0 + 40 * 60_000)
        let open = [Self.visit(1, east: 0, 0, 30), Self.visit(2, east: 10, 20, nil)]
        var places = DayTimeline.places(open, sessionEnds: ["s": end])
        #expect(places.count == 1 && places[0].departure == nil && places[0].recordingEnded == end)
        #expect(places[0].shownEnd(now: Timestamp(milliseconds: end.milliseconds + 3_600_000)) == end)
        #expect(places[0].shownEnd(now: Timestamp(milliseconds: end.milliseconds + 60_000)) == nil)
        let later = Timestamp(milliseconds: end.milliseconds + 3_600_000)
        #expect(
            places[0].endWords(now: later) { $0.iso8601() }
                == "\(end.iso8601()), when the recording ended (no departure seen)")
        var atArrival = places[0]
        atArrival.recordingEnded = atArrival.arrival
        #expect(atArrival.endWords(now: later) { $0.iso8601() } == "the recording's end (no departure seen)")
        #expect(places[0].endWords(now: end) { $0.iso8601() } == "still there")
        let json = String(decoding: try! JSONEncoder().encode(places[0]), as: UTF8.self)
        #expect(json.contains("\"recordingEnded\":\"\(end.iso8601())\""))

        places = DayTimeline.places(open)
        #expect(places[0].recordingEnded == nil && places[0].shownEnd(now: Timestamp(milliseconds: Self.t0 * 2)) == nil)
        // A place that was left has its departure, whatever the session's end.
        places = DayTimeline.places([Self.visit(1, east: 0, 0, 30)], sessionEnds: ["s": end])
        #expect(places[0].recordingEnded == nil && places[0].departure?.milliseconds == Self.t0 + 30 * 60_000)
    }
}
