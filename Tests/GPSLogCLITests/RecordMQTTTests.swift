// SPDX-License-Identifier: MIT
import Foundation
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `record --send mqtt://` and `upload --url mqtt://`: publishing as the OwnTracks apps publish, to a real Mosquitto
/// broker, read by `mosquitto_sub`; the broker going away and coming back; the publisher killed.
@Suite(
    .ownThreads,
    .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto and mosquitto-clients (make test installs them)"))
struct RecordMQTTTests {
    /// The JSON objects of `gpslog export SESSION --format owntracks`, one per line: what should have gone out.
    static func exported(_ session: String, db: String, folder: String) async throws -> [[String: Any]] {
        let r = try await runGPSLogAsync(["export", session, "--format", "owntracks"], database: db, folder: folder)
        try #require(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// A message's identity for comparisons: its JSON, keys sorted, without the tracker id (the export's is `gl`,
    /// the publisher's the device's last two letters).
    static func canonical(_ object: [String: Any]) -> String {
        var object = object
        object["tid"] = nil
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// Where two sequences first differ, shown briefly (nil when equal).
    static func firstDifference(_ a: [String], _ b: [String]) -> String? {
        if a == b { return nil }
        let i = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
        return "counts \(a.count) and \(b.count); at \(i): \(i < a.count ? a[i] : "-") vs \(i < b.count ? b[i] : "-")"
    }

    /// The location messages on `topic`, in the order they arrived, without repeats (a repeat keeps its first place).
    static func firstArrivals(_ messages: [MQTTSubscriber.Message], topic: String) -> (unique: [String], repeats: Int) {
        var seen = Set<String>()
        var unique: [String] = []
        for m in messages where m.topic == topic {
            guard let json = m.json, json["_type"] as? String == "location" else { continue }
            if seen.insert(canonical(json)).inserted { unique.append(canonical(json)) }
        }
        let all = messages.filter { $0.topic == topic && $0.json?["_type"] as? String == "location" }.count
        return (unique, all - unique.count)
    }

    /// Waits until the subscriber has every location of the session's export on `owntracks/rob/pi`; returns how the
    /// first arrivals differ from the export (nil: the same, in the same order) and how many came twice.
    static func arrivals(_ session: String, at subscriber: MQTTSubscriber, db: String, folder: String) async throws
        -> (difference: String?, repeats: Int)
    {
        let base = "owntracks/rob/pi"
        let locations = try await exported(session, db: db, folder: folder).filter {
            $0["_type"] as? String == "location"
        }
        _ = await waitUntilAsync(timeout: 30) {
            firstArrivals(subscriber.messages, topic: base).unique.count >= locations.count
        }
        let (unique, repeats) = firstArrivals(subscriber.messages, topic: base)
        return (firstDifference(unique, locations.map(canonical)), repeats)
    }

    /// OwnTracks' message rules (seeds-details 3.1): required fields and their types; `acc`, `alt`, `cog`, `vac`,
    /// `vel` integers and only when not zero.
    static func checkLocation(_ m: [String: Any]) {
        #expect(m["_type"] as? String == "location")
        #expect((m["lat"] as? Double).map { (-90...90).contains($0) } == true, "\(m)")
        #expect((m["lon"] as? Double).map { (-180...180).contains($0) } == true, "\(m)")
        #expect(m["tst"] is Int, "\(m)")
        #expect((m["tid"] as? String)?.count == 2, "\(m)")
        for key in ["acc", "alt", "cog", "vac", "vel"] where m[key] != nil {
            #expect((m[key] as? Int).map { $0 != 0 } == true, "\(key) in \(m)")
        }
        if let t = m["t"] { #expect(["p", "c", "C", "b", "r", "u", "t", "v"].contains(t as? String ?? ""), "\(m)") }
        if let mode = m["m"] { #expect([1, 2].contains(mode as? Int ?? 0), "\(m)") }
        if let regions = m["inregions"] { #expect(regions is [String], "\(m)") }
        #expect(m["topic"] == nil, "MQTT payloads carry no topic (that is for HTTP)")
    }

    @Test(.timeLimit(.minutes(5)))
    func aReplayThroughARegionPublishesEveryLocationAndEachTransitionOnce() async throws {
        try await withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let subscriber = try MQTTSubscriber(broker: broker, folder: dir)
            let db = dir + "/gpslog.sqlite"
            _ = try RegionTests.addRegion(db)
            let r = try await runGPSLogAsync(
                [
                    "record", "--source", "replay:\(RegionTests.hike)?speed=0", "--geocode", "off", "--name", "Hike",
                    "--monitoring", "move", "--send", "mqtt://127.0.0.1:\(broker.port)", "--device-id", "rob/pi",
                    "--card-name", "Rob's Pi", "--tag", "Spain 2023",
                ], database: db, folder: dir)
            try #require(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("connected to the MQTT broker mqtt://127.0.0.1:\(broker.port)/owntracks/rob/pi"))
            #expect(!r.stderr.contains("lost the MQTT broker"), "a clean end is no loss: \(r.stderr)")

            let expected = try await Self.exported("Hike", db: db, folder: dir)
            let locations = expected.filter { $0["_type"] as? String == "location" }
            let transitions = expected.filter { $0["_type"] as? String == "transition" }
            try #require(locations.count > 100 && transitions.count >= 2, "\(locations.count) \(transitions.count)")
            // Everything was confirmed before record ended: it is all at the subscriber now, or about to be.
            #expect(
                await waitUntilAsync(timeout: 30) {
                    subscriber.messages.count >= locations.count + transitions.count + 2
                }, "\(subscriber.messages.count) messages")
            let got = subscriber.messages
            let onBase = got.filter { $0.topic == "owntracks/rob/pi" }
            let published = onBase.map { Self.canonical($0.json ?? [:]) }
            #expect(Self.firstDifference(published, locations.map(Self.canonical)) == nil, "each once, in order")
            #expect(
                onBase.allSatisfy { $0.json?["tid"] as? String == "pi" && $0.json?["tag"] as? String == "Spain 2023" })
            onBase.compactMap(\.json).forEach(Self.checkLocation)

            let events = got.filter { $0.topic == "owntracks/rob/pi/event" }
            #expect(
                Self.firstDifference(events.map { Self.canonical($0.json ?? [:]) }, transitions.map(Self.canonical))
                    == nil)
            for e in events.compactMap(\.json) {
                #expect(e["_type"] as? String == "transition")
                #expect(e["wtst"] is Int && e["tst"] is Int && e["acc"] is Int, "\(e)")
                #expect(["enter", "leave"].contains(e["event"] as? String ?? ""), "\(e)")
                #expect(e["desc"] as? String == "Hut" && e["t"] as? String == "c" && e["rid"] is String, "\(e)")
                // Published before the location its fix made (t: c, same time).
                let at = got.firstIndex {
                    $0.json?["_type"] as? String == "transition" && $0.json?["tst"] as? Int == e["tst"] as? Int
                }
                let made = got.firstIndex {
                    $0.json?["_type"] as? String == "location" && $0.json?["tst"] as? Int == e["tst"] as? Int
                        && $0.json?["t"] as? String == "c"
                }
                #expect(at != nil && made != nil && at! < made!, "\(e)")
            }

            let waypoints = got.filter { $0.topic == "owntracks/rob/pi/waypoint" }.compactMap(\.json)
            #expect(waypoints.count == 1)
            #expect(waypoints.first?["_type"] as? String == "waypoint" && waypoints.first?["desc"] as? String == "Hut")
            #expect(waypoints.first?["rad"] as? Int == 150 && waypoints.first?["tst"] is Int)
            #expect(waypoints.first?["rid"] as? String == transitions.first?["rid"] as? String)

            let card = got.first { $0.topic == "owntracks/rob/pi/info" }?.json
            #expect(card?["_type"] as? String == "card" && card?["name"] as? String == "Rob's Pi")

            // Retained, as the apps publish them: a consumer that comes later (Home Assistant after a restart)
            // learns the card and where the device is now.
            let later = try runMosquittoClient(
                "mosquitto_sub",
                [
                    "-p", "\(broker.port)", "-h", "127.0.0.1", "-t", "owntracks/rob/pi/#", "-t",
                    "owntracks/rob/pi", "-C", "2", "-W", "10", "-F", "%r|%t|%p",
                ])
            #expect(later.output.contains("1|owntracks/rob/pi/info|"), "\(later.output)")
            #expect(later.output.contains("1|owntracks/rob/pi|" + "{\"_type\":\"location\""), "\(later.output)")
            #expect(later.output.contains(#""tst":\#(locations.last?["tst"] as? Int ?? -1)"#), "the newest location")
        }
    }

    @Test(.enabled(if: SocatPTYPair.isAvailable, "needs socat"), .timeLimit(.minutes(5)))
    func theBrokerAwayForAWhileLosesNothingAndKeepsTheOrder() async throws {
        try await withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let relay = try TCPRelay(to: broker.port)
            let subscriber = try MQTTSubscriber(broker: broker, folder: dir)
            let db = dir + "/gpslog.sqlite"
            let recorder = try BackgroundGPSLog(
                [
                    // 0.4: the 146 s sample lasts 365 s, longer than the test's limit, so the recording is
                    // still running at `stop` however slow a loaded machine makes the waits above it.
                    "record", "--source", "replay:sample?speed=0.4", "--geocode", "off", "--name", "Away",
                    "--commit-every", "1s", "--send", "mqtt://127.0.0.1:\(relay.port)", "--device-id", "rob/pi",
                ], database: db, folder: dir)
            let base = "owntracks/rob/pi"
            #expect(
                await waitUntilAsync(timeout: 60) { subscriber.messages.filter { $0.topic == base }.count >= 5 },
                "\(recorder.stderr)")
            relay.stop()
            #expect(await waitUntilAsync(timeout: 30) { recorder.stderr.contains("lost the MQTT broker") })
            // Away while the recorder goes on: `status` shows the queue growing and no connection.
            #expect(
                try await waitUntilAsync(timeout: 60) {
                    let s = try await runGPSLogAsync(["status", "--json"], database: db, folder: dir).stdout
                    let json = try? JSONSerialization.jsonObject(with: Data(s.utf8)) as? [String: Any]
                    let sending = json?["sending"] as? [String: Any]
                    return sending?["connected"] as? Bool == false && sending?["queued"] as? Int ?? 0 >= 5
                }, "\(recorder.stderr)")
            let text = try await runGPSLogAsync(["status"], database: db, folder: dir).stdout
            #expect(text.contains("; not connected; last attempt failed: not connected to the MQTT broker"), "\(text)")
            let during = Self.firstArrivals(subscriber.messages, topic: base).unique.count
            try relay.start()
            // libmosquitto tries again 1 s, 2 s, 4 s... after the loss (at most 30 s apart).
            #expect(
                await waitUntilAsync(timeout: 60) {
                    recorder.stderr.components(separatedBy: "connected to the MQTT broker").count - 1 >= 2
                }, "\(recorder.stderr)")
            #expect(
                await waitUntilAsync(timeout: 30) {
                    Self.firstArrivals(subscriber.messages, topic: base).unique.count >= during + 5
                }, "what waited went once the broker was back")
            let stop = try await runGPSLogAsync(["stop"], database: db, folder: dir)
            #expect(stop.status == 0, "\(stop.stderr)")
            #expect(await recorder.exitStatus(timeout: 120) == 0, "\(recorder.stderr)")

            let (difference, _) = try await Self.arrivals("Away", at: subscriber, db: db, folder: dir)
            #expect(difference == nil, "every queued location arrived, in order")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func aKilledPublisherLeavesItsLastWillAndUploadSendsTheRestOnce() async throws {
        try await withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let subscriber = try MQTTSubscriber(broker: broker, folder: dir)
            let db = dir + "/gpslog.sqlite"
            let url = "mqtt://127.0.0.1:\(broker.port)"
            let recorder = try BackgroundGPSLog(
                [
                    // 1: the 146 s sample is still being recorded at the kill on a loaded machine (at 4 its 36 s
                    // ran out first, and a recorder that ends normally leaves no last will).
                    "record", "--source", "replay:sample?speed=1", "--geocode", "off", "--name", "Killed",
                    "--commit-every", "1s", "--send", url, "--device-id", "rob/pi", "--batch-size", "1",
                ], database: db, folder: dir)
            let base = "owntracks/rob/pi"
            #expect(
                await waitUntilAsync(timeout: 60) { subscriber.messages.filter { $0.topic == base }.count >= 10 },
                "\(recorder.stderr)")
            // A POI from another shell goes as the apps send one: a user-triggered location with `poi`.
            let poi = try await runGPSLogAsync(["mark", "--poi", "delicious seafood"], database: db, folder: dir)
            #expect(poi.status == 0, "\(poi.stderr)")
            #expect(
                await waitUntilAsync(timeout: 30) {
                    subscriber.messages.contains {
                        $0.topic == base && $0.json?["poi"] as? String == "delicious seafood"
                            && $0.json?["t"] as? String == "u"
                    }
                }, "\(recorder.stderr)")
            kill(recorder.process.processIdentifier, SIGKILL)
            _ = await recorder.exitStatus(timeout: 30)
            // The broker publishes the will when the socket closes without a DISCONNECT.
            #expect(
                await waitUntilAsync(timeout: 30) {
                    subscriber.messages.contains { $0.topic == base && $0.json?["_type"] as? String == "lwt" }
                })
            let lwt = subscriber.messages.first { $0.json?["_type"] as? String == "lwt" }?.json
            #expect(lwt?["tst"] is Int && lwt?.count == 2, "\(lwt ?? [:])")

            let upload = try await runGPSLogAsync(
                ["upload", "Killed", "--url", url, "--device-id", "rob/pi"], database: db, folder: dir)
            #expect(upload.status == 0, "\(upload.stderr)")
            #expect(upload.stdout.contains("Published 'Killed' to \(url)/owntracks/rob/pi"), "\(upload.stdout)")
            let (difference, repeats) = try await Self.arrivals("Killed", at: subscriber, db: db, folder: dir)
            #expect(difference == nil, "nothing lost, in order")
            #expect(repeats <= 1, "at most the one message in flight at the kill went twice (\(repeats))")

            // Everything confirmed: a second upload publishes nothing.
            let again = try await runGPSLogAsync(
                ["upload", "Killed", "--url", url, "--device-id", "rob/pi"], database: db, folder: dir)
            #expect(again.stdout.contains(": 0 locations in 0 batches"), "\(again.stdout)")
        }
    }
}
