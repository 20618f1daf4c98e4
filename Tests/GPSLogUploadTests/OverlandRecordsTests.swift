// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// Overland's pause, resume and visit records, sent live by `record --send` and by `upload`, each once per
/// destination, on the real 10-hour hike with stops of 3 to 25 minutes; and `serve` not taking them for locations.
/// The tests that record the hike in the background while sending, one at a time: each is paced by the replay,
/// and several at once on a loaded machine would leave one another too little time.
@Suite(.ownThreads, .serialized) enum LiveSendingSuites {}

extension LiveSendingSuites {
    @Suite struct OverlandRecordsTests {
        static let hike = TestPaths.packageRoot + "/Tests/Fixtures/tracks/georust_garmin_with_extensions.gpx"
        static let token = "records-test-token-0123456789"

        /// The records a session's rows should give, as (action, timestamp) with repeats: a pause one, a resume two,
        /// a visit its arrival and its departure.
        static func expectedRecords(_ db: String) throws -> [String] {
            let store = try Store(path: db)
            defer { store.close() }
            let session = try #require(try store.sessions().first)
            var out: [String] = []
            for e in try store.trackingEvents(of: session.id) {
                if e.action == .resumed { out.append("exited_pause_region " + e.time.iso8601()) }
                out.append(e.action.rawValue + " " + e.time.iso8601())
            }
            for v in try store.visits(of: session.id) {
                out.append("visit " + v.arrival.iso8601() + " -> null")
                if let d = v.departure { out.append("visit " + v.arrival.iso8601() + " -> " + d.iso8601()) }
            }
            return out.sorted()
        }

        /// The records a server received, in the same spelling.
        static func received(_ server: ScriptedOverlandServer) -> [String] {
            server.log.flatMap(\.records).map { f in
                let p = props(f)
                let action = p["action"] as? String ?? "?"
                if action == "visit" {
                    let departure = p["departure_date"] as? String ?? "null"
                    return "visit \(p["arrival_date"] as? String ?? "?") -> \(departure)"
                }
                return action + " " + (p["timestamp"] as? String ?? "?")
            }.sorted()
        }

        @Test func liveSendingAndUploadSendEachRecordOnceAndServeStoresNoBogusPoint() async throws {
            let live = ScriptedOverlandServer()
            let other = ScriptedOverlandServer()
            try await live.start()
            try await other.start()
            try await withTemporaryDirectory { dir in
                let db = dir + "/hike.sqlite"
                // A replay at full speed: the whole hike is recorded in a second or two, before the first send
                // interval; the last send at the end sends it all, in batches, with its records.
                let r = try await runGPSLogAsync(
                    [
                        "record", "--source", "replay:\(Self.hike)?speed=0", "--geocode", "off", "--name", "Hike",
                        "--pause-when-stopped", "10m", "--visits", "--send", live.url, "--token", Self.token,
                        "--send-interval", "1s", "--batch-size", "300",
                    ], database: db, folder: dir)
                try #require(r.status == 0, "\(r.stderr)")
                #expect(!r.stderr.contains(Self.token) && !r.stdout.contains(Self.token))
                let expected = try Self.expectedRecords(db)
                #expect(expected.filter { $0.hasPrefix("paused") }.count >= 3, "the hike pauses at its long stops")
                #expect(expected.filter { $0.hasPrefix("visit") }.count > 20, "and has many visits")
                // Each record arrived exactly once, and every track point once.
                #expect(Self.received(live) == expected)
                let points = try UploadTests.points(db)
                let stamps = live.log.flatMap(\.locations).compactMap { props($0)["timestamp"] as? String }
                #expect(stamps.count == points.count && Set(stamps).count == points.count)
                #expect(live.log.allSatisfy { $0.authorization == "Bearer " + Self.token })

                // `upload` to another destination sends them all once too, and a second run nothing more.
                let up = try await runGPSLogAsync(["upload", "Hike", "--url", other.url], database: db, folder: dir)
                #expect(up.status == 0 && up.stdout.contains("\(expected.count) records"), "\(up.stdout) \(up.stderr)")
                #expect(Self.received(other) == expected)
                let again = try await runGPSLogAsync(["upload", "Hike", "--url", other.url], database: db, folder: dir)
                #expect(again.status == 0 && !again.stdout.contains("records"), "\(again.stdout)")
                #expect(Self.received(other) == expected)
                // Nor does the live destination get anything again.
                let before = live.log.count
                let liveAgain = try await runGPSLogAsync(
                    ["upload", "Hike", "--url", live.url], database: db, folder: dir)
                #expect(liveAgain.status == 0 && live.log.count == before, "\(liveAgain.stdout)")

                // `serve` receiving them stores the track points, nothing for the pause records, and the visits.
                let serve = try ServeProcess(folder: dir + "/serve", token: Self.token)
                let toServe = try await runGPSLogAsync(
                    ["upload", "Hike", "--url", serve.url, "--token", Self.token, "--batch-size", "250"], database: db,
                    folder: dir)
                #expect(toServe.status == 0, "\(toServe.stderr)")
                #expect(try serve.points() == points)
                let received = try Store(path: serve.database)
                defer { received.close() }
                let session = try #require(try received.sessions().first { $0.name == "overland" })
                let visits = try received.visits(of: session.id)
                let sent = try Store(path: db)
                defer { sent.close() }
                let recorded = try sent.visits(of: try #require(try sent.sessions().first).id)
                #expect(visits.map(\.arrival) == recorded.map(\.arrival))
                #expect(visits.map(\.departure) == recorded.map(\.departure))
                kill(serve.process.process.processIdentifier, SIGTERM)
                #expect(await serve.process.exitStatus(timeout: 20) != nil)
            }
            await live.stop()
            await other.stop()
        }

        /// The status of the recording on `db`, once `condition` holds (nil after `timeout` seconds). Asked four times
        /// a second: each look starts a process, and a tighter loop would load the machine the other tests share.
        static func status(_ db: String, timeout: Double, _ condition: @escaping ([String: Any]) -> Bool) async throws
            -> [String: Any]?
        {
            var found: [String: Any]?
            _ = try await waitUntilAsync(timeout: timeout) {
                let folder = URL(fileURLWithPath: db).deletingLastPathComponent().path
                let r = try await runGPSLogAsync(["status", "--json"], database: db, folder: folder)
                found = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]).flatMap {
                    condition($0) ? $0 : nil
                }
                if found == nil { try? await Task.sleep(for: .milliseconds(250)) }
                return found != nil
            }
            return found
        }

        @Test func aFinishedTripIsSentOnceAsOverlandsTripRecord() async throws {
            let server = ScriptedOverlandServer()
            try await server.start()
            try await withTemporaryDirectory { dir in
                let db = dir + "/trip.sqlite"
                let run = try BackgroundGPSLog(
                    [
                        "record", "--source", "replay:\(Self.hike)?speed=600", "--geocode", "off", "--name", "Day",
                        "--commit-every", "1s", "--send", server.url, "--send-interval", "off", "--trip-batch-size",
                        "3",
                    ], database: db, folder: dir)
                #expect(try await Self.status(db, timeout: 30) { $0["fixesReceived"] as? Int ?? 0 > 300 } != nil)
                let started = try runGPSLog(["trip", "start", "--mode", "walk", "--name", "Summit"], database: db)
                #expect(started.status == 0, "\(started.stderr)")
                #expect(
                    try await Self.status(db, timeout: 30) {
                        $0["sessionName"] as? String == "Summit" && $0["entries"] as? Int ?? 0 > 5
                    } != nil, "\(run.stderr)")
                // A send while the trip runs (on demand: a timer could fire before 3 points wait, or not at all
                // during a trip replayed at 600x) goes in the trip's batches of 3. The status counts points not yet
                // committed too, and a send reads the database: it waits for 3 committed (under load, the send once
                // came before the commit, and the trip's points all went at its end).
                #expect(
                    await waitUntilAsync(timeout: 30) {
                        guard let store = try? Store(path: db) else { return false }
                        defer { store.close() }
                        guard let trip = try? store.sessions().first(where: { $0.isTrip }) else { return false }
                        return ((try? store.summary(of: trip).entryCount) ?? 0) >= 3
                    }, "\(run.stderr)")
                let sent = try runGPSLog(["send-now"], database: db)
                #expect(sent.status == 0, "\(sent.stderr)")
                #expect(try runGPSLog(["trip", "stop"], database: db).status == 0)
                // Fixes after the trip, then the end: the last send carries the trip's record, and the points since
                // in the main batches (more than 3 each).
                // The recording goes on as "Day 2023-..." (named apart from its first part).
                let atStop = try await Self.status(db, timeout: 30) {
                    ($0["sessionName"] as? String)?.hasPrefix("Day") == true
                }
                let fixes = atStop?["fixesReceived"] as? Int ?? 0
                #expect(
                    try await Self.status(db, timeout: 30) {
                        ($0["sessionName"] as? String)?.hasPrefix("Day") == true
                            && $0["fixesReceived"] as? Int ?? 0 > fixes + 60
                    } != nil)
                #expect(try runGPSLog(["stop"], database: db).status == 0)
                #expect(await run.exitStatus(timeout: 60) == 0, "\(run.stderr)")

                let store = try Store(path: db)
                defer { store.close() }
                let trip = try #require(try store.sessions().first { $0.isTrip })
                let trips = server.log.flatMap(\.features).filter { props($0)["type"] as? String == "trip" }
                #expect(trips.count == 1, "\(trips.count) trip records")
                let p = props(try #require(trips.first))
                #expect(p["mode"] as? String == "walk" && p["stopped_automatically"] as? Bool == false)
                #expect(p["start"] as? String == trip.start.iso8601() && p["end"] as? String == trip.end?.iso8601())
                let length = try store.trackLength(sessionID: trip.id)
                #expect(abs((p["distance"] as? Double ?? -1) - length) < 0.1)
                #expect(p["start_location"] is [String: Any] && p["end_location"] is [String: Any])
                // The trip's own locations arrived with Overland's trip object, and the record is not a location.
                let tripBatches = server.log.filter {
                    ($0.json?["trip"] as? [String: Any])?["mode"] as? String == "walk"
                }
                #expect(!tripBatches.isEmpty)
                // While the trip ran, its batches held 3 points (--trip-batch-size); the main ones, more.
                #expect(tripBatches.contains { $0.locations.count == 3 }, "\(tripBatches.map(\.locations.count))")
                #expect(server.log.contains { $0.json?["trip"] == nil && $0.locations.count > 3 })
                #expect(server.log.flatMap(\.locations).count == (try UploadTests.points(db)).count)
            }
            await server.stop()
        }
    }
}
