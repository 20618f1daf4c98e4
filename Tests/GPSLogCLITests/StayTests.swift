// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `record --pause-when-stopped` and `--visits` on a real 10-hour hike with stops of 3 to 25 minutes, checked against
/// the GPX's own points.
@Suite(.ownThreads)
struct StayTests {
    static let hike = TestPaths.packageRoot + "/Tests/Fixtures/tracks/georust_garmin_with_extensions.gpx"

    /// The hike's points as the GPX has them: time and position.
    static func points() throws -> [(time: Timestamp, latitude: Double, longitude: Double)] {
        let text = try String(contentsOfFile: hike, encoding: .utf8)
        let pattern = try Regex(#"<trkpt lat="([-0-9.]+)" lon="([-0-9.]+)">\s*<ele>[^<]*</ele>\s*<time>([^<]+)</time>"#)
        return text.matches(of: pattern).compactMap { m in
            guard let lat = Double(String(m.output[1].substring ?? "")),
                let lon = Double(String(m.output[2].substring ?? "")),
                let time = Timestamp(iso8601: String(m.output[3].substring ?? ""))
            else { return nil }
            return (time, lat, lon)
        }
    }

    static func distance(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        Geo.distance(lat1: a.0, lon1: a.1, lat2: b.0, lon2: b.1)
    }

    @Test func theHikePausesAtItsLongStopsAndRecordsItsVisits() throws {
        let points = try Self.points()
        try #require(points.count == 3540)
        try withTemporaryDirectory { dir in
            let db = dir + "/hike.sqlite"
            let r = try runGPSLog(
                [
                    "record", "--source", "replay:\(Self.hike)?speed=0", "--geocode", "off", "--name", "Hike",
                    "--pause-when-stopped", "10m", "--visits",
                ], database: db)
            try #require(r.status == 0, "\(r.stderr)")
            let store = try Store(path: db)
            defer { store.close() }
            let session = try #require(try store.sessions().first)
            let events = try store.trackingEvents(of: session.id)
            var entries: [Entry] = []
            try store.entries(of: session.id).forEach { entries.append($0) }

            let pauses = events.filter { $0.action == .paused }
            let resumes = events.filter { $0.action == .resumed }
            #expect(pauses.count >= 3, "the hike has several stops of ten minutes or more")
            #expect(resumes.count == pauses.count || resumes.count == pauses.count - 1)
            for (i, pause) in pauses.enumerated() {
                // Ten minutes standing still before it: the points of those minutes lie within 100 m of each other.
                let before = points.filter {
                    $0.time.milliseconds >= pause.time.milliseconds - 600_000 && $0.time <= pause.time
                }
                for a in before {
                    #expect(
                        before.allSatisfy {
                            Self.distance((a.latitude, a.longitude), ($0.latitude, $0.longitude)) <= 100
                        })
                }
                guard i < resumes.count else { continue }
                let resume = resumes[i]
                #expect(resume.time > pause.time)
                #expect(
                    Self.distance((pause.latitude, pause.longitude), (resume.latitude, resume.longitude)) > 100,
                    "resumed inside the geofence at \(resume.time.iso8601())")
                // No entries while paused; the first after it is the resume's fix and starts a segment.
                #expect(!entries.contains { $0.time > pause.time && $0.time < resume.time && !$0.marked })
                let next = try #require(entries.first { $0.time >= resume.time })
                #expect(next.time == resume.time && next.startsSegment)
            }

            let visits = try store.visits(of: session.id)
            #expect(visits.count > 10, "the hike stops for three minutes or more many times")
            for v in visits {
                let departure = try #require(v.departure, "the hike leaves every place it stopped at")
                #expect(departure.milliseconds - v.arrival.milliseconds >= 180_000)
                let stay = points.filter { $0.time >= v.arrival && $0.time < departure }
                let first = try #require(stay.first)
                #expect(first.time == v.arrival)
                #expect(
                    stay.allSatisfy {
                        Self.distance((first.latitude, first.longitude), ($0.latitude, $0.longitude)) < 50
                    })
                let leaving = try #require(points.first { $0.time == departure })
                #expect(Self.distance((first.latitude, first.longitude), (leaving.latitude, leaving.longitude)) >= 50)
            }
            #expect(zip(visits, visits.dropFirst()).allSatisfy { $0.departure! <= $1.arrival })

            let listed = try runGPSLog(["visits", "Hike", "--json"], database: db)
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            #expect(json.count == visits.count)
            let text = try runGPSLog(["visits", "Hike"], database: db)
            #expect(text.stdout.split(separator: "\n").count == visits.count)
            // Each with the id `visit rename` takes; a name given shows in both.
            let id = try #require(json.first?["id"] as? Int)
            #expect(text.stdout.contains("(visit \(id))"), "\(text.stdout)")
            #expect(try runGPSLog(["visit", "rename", String(id), "Summit hut"], database: db).status == 0)
            #expect(try runGPSLog(["visits", "Hike"], database: db).stdout.contains("Summit hut  "))
            let renamed = try runGPSLog(["visits", "Hike", "--json"], database: db).stdout
            #expect(
                renamed.contains(#""name":"Summit hut""#) || renamed.contains(#""name" : "Summit hut""#), "\(renamed)")
            let show = try runGPSLog(["show", "Hike"], database: db)
            #expect(show.stdout.contains("Paused:") && show.stdout.contains("Visits:"), "\(show.stdout)")
            let geojson = try runGPSLog(["export", "Hike", "--format", "geojson"], database: db)
            #expect(geojson.stdout.components(separatedBy: #""kind":"visit""#).count - 1 == visits.count)
        }
    }
}
