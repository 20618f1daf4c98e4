// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSQLite
import GPSLogTestSupport
import Testing

/// `serve --mqtt` loses nothing the broker handed over: a message is acknowledged only once it is committed, and the
/// session outlives `serve` (a fixed client id, clean session off), so what the database cannot take, and what comes
/// while `serve` is stopped or killed, waits at a real Mosquitto broker and is stored at the next chance.
@Suite(
    .ownThreads,
    .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto and mosquitto-clients (make test installs them)"))
struct ServeMQTTDurableTests {
    static func location(_ second: Int) -> String {
        #"{"_type":"location","lat":52.5,"lon":13.\#(second % 10),"tst":\#(1_709_300_000 + second),"tid":"RO"}"#
    }

    static func publish(_ broker: MosquittoBroker, _ message: String) throws {
        let r = try runMosquittoClient(
            "mosquitto_pub",
            ["-p", "\(broker.port)", "-h", "127.0.0.1", "-t", "owntracks/rob/phone", "-q", "1", "-m", message])
        #expect(r.status == 0, "\(r.output)")
    }

    static func serve(_ broker: MosquittoBroker, _ db: String, _ dir: String, run: Int) throws -> BackgroundGPSLog {
        let folder = dir + "/serve-\(run)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let serve = try BackgroundGPSLog(
            [
                "serve", "--listen", "127.0.0.1:0", "--verbose", "--no-view", "--mqtt",
                "mqtt://127.0.0.1:\(broker.port)",
            ],
            database: db, folder: folder)
        #expect(waitUntil(timeout: 20) { serve.stderr.contains("subscribed to owntracks/#") }, "\(serve.stderr)")
        return serve
    }

    /// A broker, and serve on a new database that stored one location from it.
    static func serveWithOneLocation(_ dir: String) throws -> (MosquittoBroker, String, BackgroundGPSLog) {
        let broker = try MosquittoBroker(folder: dir)
        let db = dir + "/gpslog.sqlite"
        let serve = try Self.serve(broker, db, dir, run: 1)
        try Self.publish(broker, Self.location(1))
        #expect(waitUntil(timeout: 20) { ServeMQTTTests.entries(db, session: "rob/phone") == 1 }, "\(serve.stderr)")
        return (broker, db, serve)
    }

    @Test func aMessageTheDatabaseCannotTakeWaitsAtTheBrokerThroughAKill() throws {
        try withTemporaryDirectory { dir in
            let (broker, db, first) = try Self.serveWithOneLocation(dir)

            // Another process holds the write lock: serve's store fails after its busy timeout (15 s).
            let locker = try Database(path: db)
            try locker.execute("BEGIN IMMEDIATE")
            try Self.publish(broker, Self.location(2))
            try Self.publish(broker, Self.location(3))
            #expect(
                waitUntil(timeout: 60) { first.stderr.contains("not acknowledged: the broker holds it") },
                "\(first.stderr)")
            // Killed while it holds the message back: the broker still has both, the second never handed over.
            kill(first.process.processIdentifier, SIGKILL)
            _ = first.wait(timeout: 10)
            try locker.execute("ROLLBACK")
            locker.close()

            let second = try Self.serve(broker, db, dir, run: 2)
            #expect(
                waitUntil(timeout: 30) { ServeMQTTTests.entries(db, session: "rob/phone") == 3 }, "\(second.stderr)")
            kill(second.process.processIdentifier, SIGTERM)
            #expect(second.wait(timeout: 30) == 0, "\(second.stderr)")
            // One client id for both, and a session the broker keeps (clean session off).
            let connections = broker.logText.split(separator: "\n").filter {
                $0.contains("New client connected") && $0.contains(" as gpslog-serve-")
            }
            #expect(connections.count == 2, "\(connections)")
            #expect(connections.allSatisfy { $0.contains("c0") }, "\(connections)")
            #expect(Set(connections.map { $0.split(separator: " as ").last?.prefix(23) }).count == 1)
        }
    }

    @Test func whatComesWhileServeIsStoppedIsStoredAtTheNextStart() throws {
        try withTemporaryDirectory { dir in
            let (broker, db, first) = try Self.serveWithOneLocation(dir)
            kill(first.process.processIdentifier, SIGTERM)
            #expect(first.wait(timeout: 30) == 0, "\(first.stderr)")

            for second in 2...4 { try Self.publish(broker, Self.location(second)) }
            let again = try Self.serve(broker, db, dir, run: 2)
            #expect(
                waitUntil(timeout: 30) { ServeMQTTTests.entries(db, session: "rob/phone") == 4 }, "\(again.stderr)")
            #expect(!again.stderr.contains("lost the MQTT broker"), "\(again.stderr)")
        }
    }

    @Test func aClientIDBrokersRefuseIsRefusedBeforeServing() throws {
        for id in ["", "far-too-long-a-client-id-for-a-broker", "with space", "émoji"] {
            let r = try runGPSLog(
                ["serve", "--mqtt", "mqtt://127.0.0.1:1", "--mqtt-client-id", id], database: "/nonexistent/db.sqlite")
            #expect(r.status != 0, "\(id)")
            #expect(r.stderr.contains("--mqtt-client-id"), "\(r.stderr)")
        }
    }
}
