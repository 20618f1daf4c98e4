// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSQLite
import GPSLogTestSupport
import Testing

/// `gpslog serve --mqtt` with people and devices: a real Mosquitto with a password file (mosquitto_passwd) and the
/// README's ACL, one MQTT user per device, each kept in its own topic by the broker; serve stores only the topics of
/// devices it knows and has not revoked.
@Suite(
    .ownThreads,
    .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto and mosquitto-clients (make test installs them)"))
struct AccountsMQTTTests {
    /// The README's ACL: serve reads every device's topic; each device writes only in its own.
    static let acl = """
        user gpslog
        topic read owntracks/#

        user alice-phone
        topic readwrite owntracks/alice/phone/#

        user bob-phone
        topic readwrite owntracks/bob/phone/#

        user carol-phone
        topic readwrite owntracks/carol/phone/#

        """

    static func location(_ second: Int) -> String {
        #"{"_type":"location","lat":52.1,"lon":5.1,"tst":\#(1_714_557_600 + second),"tid":"ph"}"#
    }

    func publish(_ broker: MosquittoBroker, as user: String, _ topic: String, _ message: String) throws {
        let r = try runMosquittoClient(
            "mosquitto_pub",
            [
                "-p", "\(broker.port)", "-h", "127.0.0.1", "-u", user, "-P", "pw-" + user, "-t", topic, "-q", "1",
                "-m", message,
            ])
        #expect(r.status == 0, "\(user) on \(topic): \(r.output)")
    }

    /// Entries per received session (Receiver), and each session's owner.
    static func sessions(_ db: String) -> [String: String] {
        guard let database = try? Database(path: db, mode: .readOnly) else { return [:] }
        defer { database.close() }
        let text =
            (try? database.scalar(
                """
                SELECT group_concat(s.Receiver || '=' || COALESCE(u.Name, '-') || ':'
                    || (SELECT COUNT(*) FROM EntryRows e WHERE e.SessionKey = s.Key), char(10))
                FROM Sessions s LEFT JOIN Users u ON u.Key = s.Owner WHERE s.Receiver IS NOT NULL
                """))?.string ?? ""
        return Dictionary(
            text.split(separator: "\n").map { line in
                let parts = line.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), String(parts[1]))
            }, uniquingKeysWith: { a, _ in a })
    }

    @Test(.timeLimit(.minutes(10)))
    func eachDeviceStaysInItsOwnTopicAndServeStoresOnlyKnownDevices() throws {
        try withTemporaryDirectory { dir in
            let passwords = dir + "/mosquitto.users"
            for (n, user) in ["gpslog", "alice-phone", "bob-phone", "carol-phone"].enumerated() {
                let made = try runTool(
                    "/usr/bin/mosquitto_passwd", ["-b"] + (n == 0 ? ["-c"] : []) + [passwords, user, "pw-" + user])
                try #require(made.status == 0, "\(made.output)")
            }
            try Self.acl.write(toFile: dir + "/mosquitto.acl", atomically: true, encoding: .utf8)
            let broker = try MosquittoBroker(
                folder: dir,
                extraConfig: "allow_anonymous false\npassword_file \(passwords)\nacl_file \(dir)/mosquitto.acl\n")

            let db = dir + "/gpslog.sqlite"
            for command in [
                ["user", "add", "alice", "--no-password"], ["user", "add", "bob", "--no-password"],
                ["user", "add", "carol", "--no-password"], ["device", "add", "alice/phone"],
                ["device", "add", "bob/phone"], ["device", "add", "carol/phone"], ["device", "revoke", "carol/phone"],
            ] {
                let r = try runGPSLog(command, database: db)
                try #require(r.status == 0, "\(command): \(r.stderr)")
            }
            let serve = try BackgroundGPSLog(
                [
                    "serve", "--listen", "127.0.0.1:0", "--verbose", "--mqtt", "mqtt://127.0.0.1:\(broker.port)",
                    "--mqtt-username", "gpslog",
                ], database: db, folder: dir, environment: ["GPSLOG_MQTT_PASSWORD": "pw-gpslog"])
            defer {
                if serve.process.isRunning { kill(serve.process.processIdentifier, SIGKILL) }
                serve.process.waitUntilExit()
            }
            #expect(waitUntil(timeout: 30) { serve.stderr.contains("subscribed to owntracks/#") }, "\(serve.stderr)")

            // Alice's phone tries bob's topic (the broker drops it), then writes in its own.
            try publish(broker, as: "alice-phone", "owntracks/bob/phone", Self.location(1))
            try publish(broker, as: "alice-phone", "owntracks/alice/phone", Self.location(2))
            try publish(broker, as: "alice-phone", "owntracks/alice/phone", Self.location(3))
            // Carol's phone may publish by the broker's rules, but its device is revoked: serve drops it, said once.
            try publish(broker, as: "carol-phone", "owntracks/carol/phone", Self.location(4))
            try publish(broker, as: "carol-phone", "owntracks/carol/phone", Self.location(5))
            try publish(broker, as: "bob-phone", "owntracks/bob/phone", Self.location(6))
            #expect(
                waitUntil(timeout: 30) { Self.sessions(db)["owntracks:bob/phone"] != nil }, "\(serve.stderr)")
            let sessions = Self.sessions(db)
            #expect(
                sessions == ["owntracks:alice/phone": "alice:2", "owntracks:bob/phone": "bob:1"],
                "alice's messages only as alice, none in bob's topic: \(sessions)")
            #expect(broker.logText.contains("Denied PUBLISH from"), "the broker refused alice in bob's topic")
            #expect(
                serve.stderr.components(separatedBy: "dropped MQTT messages of 'carol/phone'").count - 1 == 1,
                "a revoked device is said once: \(serve.stderr)")
        }
    }
}
