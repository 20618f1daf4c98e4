// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// Overland's remote configuration: a server's answer `{"result":"ok","set":{...}}` changes the running recording,
/// is kept for the next run to the same URL (below the flags given), and `off` is refused without
/// `--allow-remote-off`. Recorded from the real hike, replayed at 2000 times its pace (about 18 s).
extension LiveSendingSuites {
    @Suite struct ServerSettingsTests {
        static let hike = LiveSendingSuites.OverlandRecordsTests.hike
        static let token = "settings-test-token-9876543210"

        /// Track points of the named session, in order.
        static func entries(_ db: String, session name: String) throws -> [Entry] {
            let store = try Store(path: db)
            defer { store.close() }
            let session = try store.resolveSession(name)
            var out: [Entry] = []
            try store.entries(of: session.id).forEach { if !$0.marked && !$0.isHeadingChanged { out.append($0) } }
            return out
        }

        static func distance(_ a: Entry, _ b: Entry) -> Double {
            Geo.distance(lat1: a.latitude, lon1: a.longitude, lat2: b.latitude, lon2: b.longitude)
        }

        @Test func aServersSetChangesTheRecordingAndTheNextRunStartsWithIt() async throws {
            let server = ScriptedOverlandServer { index, _ in
                index == 1 ? #"{"result":"ok","set":{"send_interval":"1s","main":{"min_distance":"50m"}}}"# : nil
            }
            try await server.start()
            try await withTemporaryDirectory { dir in
                let db = dir + "/set.sqlite"
                let run = try BackgroundGPSLog(
                    [
                        "record", "--source", "replay:\(Self.hike)?speed=2000", "--geocode", "off", "--commit-every",
                        "1s",
                        "--name", "First",
                        "--send", server.url, "--token", Self.token, "--send-interval", "2s", "--batch-size", "100",
                    ], database: db, folder: dir)
                // The answer to the second batch changes both settings; the log names each with its old value.
                #expect(
                    await waitUntilAsync(timeout: 60) {
                        run.stderr.contains("set main.min_distance 50m (was off)")
                            && run.stderr.contains("set send_interval 1s (was 2s)")
                    }, "\(run.stderr)")
                // `status --json` shows them in force; entries after that fix are 50 m or more apart.
                let changed = try await LiveSendingSuites.OverlandRecordsTests.status(db, timeout: 30) { s in
                    (s["sampling"] as? [String: Any])?["minDistance"] as? Double == 50
                        && (s["sending"] as? [String: Any])?["interval"] as? String == "1s"
                }
                let changedAt = (changed?["lastFixTime"] as? String).flatMap(Timestamp.init(iso8601:))
                #expect(await run.exitStatus(timeout: 120) == 0, "\(run.stderr)")
                #expect(!run.stderr.contains(Self.token) && !run.stdout.contains(Self.token))
                let first = try Self.entries(db, session: "First")
                let after = try #require(changedAt)
                let later = zip(first, first.dropFirst()).filter { $0.1.time > after }
                #expect(later.count > 20, "the recording went on after the change")
                #expect(later.allSatisfy { Self.distance($0.0, $0.1) >= 50 })
                #expect(zip(first, first.dropFirst()).contains { Self.distance($0.0, $0.1) < 50 }, "denser before it")
                // POSTs came closer together once the interval was 1 s (loose: the replay's pace varies).
                #expect(server.log.count > 5)

                // The next run to the same URL starts with them, and says so.
                let second = try await runGPSLogAsync(
                    [
                        "record", "--source", "replay:\(Self.hike)?speed=0", "--geocode", "off", "--name", "Second",
                        "--send", server.url, "--token", Self.token,
                    ], database: db, folder: dir)
                #expect(second.status == 0, "\(second.stderr)")
                #expect(second.stderr.contains("kept from the last run") && second.stderr.contains("min_distance 50m"))
                let entries = try Self.entries(db, session: "Second")
                #expect(
                    entries.count > 50 && zip(entries, entries.dropFirst()).allSatisfy { Self.distance($0, $1) >= 50 })
                // A flag given on the command line wins over the kept setting.
                let third = try await runGPSLogAsync(
                    [
                        "record", "--source", "replay:\(Self.hike)?speed=0", "--geocode", "off", "--name", "Third",
                        "--send", server.url, "--token", Self.token, "--min-distance", "10",
                    ], database: db, folder: dir)
                #expect(third.status == 0 && third.stderr.contains("--min-distance given on the command line wins"))
                let dense = try Self.entries(db, session: "Third")
                #expect(zip(dense, dense.dropFirst()).contains { Self.distance($0, $1) < 50 })
            }
            await server.stop()
        }

        @Test func offIsRefusedWithoutTheFlagAndStopsSendingWithIt() async throws {
            let answer = #"{"result":"ok","set":{"send_interval":"off","main":{"tracking_mode":"off"}}}"#
            let refusing = ScriptedOverlandServer { index, _ in index == 0 ? answer : nil }
            try await refusing.start()
            try await withTemporaryDirectory { dir in
                let db = dir + "/off.sqlite"
                let run = try BackgroundGPSLog(
                    [
                        "record", "--source", "replay:\(Self.hike)?speed=2000", "--geocode", "off", "--commit-every",
                        "1s",
                        "--send",
                        refusing.url, "--send-interval", "1s", "--batch-size", "5000",
                    ], database: db, folder: dir)
                // Refused, named, and sending goes on.
                #expect(
                    await waitUntilAsync(timeout: 60) {
                        run.stderr.contains("set send_interval off: refused")
                            && run.stderr.contains("set main.tracking_mode off: refused")
                            && run.stderr.contains("--allow-remote-off") && refusing.log.count >= 3
                    }, "\(run.stderr)")
                #expect(await run.exitStatus(timeout: 120) == 0)
                let store = try Store(path: db)
                #expect(
                    try store.serverSettings(destination: "overland " + refusing.url).isEmpty, "refusals are not kept")
                store.close()
            }
            await refusing.stop()

            let accepted = ScriptedOverlandServer { index, _ in
                index == 0 ? #"{"result":"ok","set":{"send_interval":"off"}}"# : nil
            }
            try await accepted.start()
            try await withTemporaryDirectory { dir in
                let db = dir + "/off.sqlite"
                let run = try BackgroundGPSLog(
                    [
                        "record", "--source", "replay:\(Self.hike)?speed=2000", "--geocode", "off", "--commit-every",
                        "1s",
                        "--send",
                        accepted.url, "--send-interval", "1s", "--batch-size", "5000", "--allow-remote-off",
                    ], database: db, folder: dir)
                #expect(
                    await waitUntilAsync(timeout: 60) { run.stderr.contains("set send_interval off (was 1s)") },
                    "\(run.stderr)")
                #expect(await run.exitStatus(timeout: 120) == 0)
                // One send before the change, then only the last one at the end (one batch holds the rest).
                #expect(accepted.log.count == 2, "\(accepted.log.count) requests")
                let points = try UploadTests.points(db)
                #expect(accepted.log.flatMap(\.locations).count == points.count)
            }
            await accepted.stop()
        }
    }
}
