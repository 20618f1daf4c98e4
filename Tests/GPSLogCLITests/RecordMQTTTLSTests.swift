// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// Publishing to a broker that takes TLS only, with a CA and certificates `openssl` makes here, a client certificate
/// and a password; a wrong password and a missing certificate are clear errors, and the password is never shown.
@Suite(
    .ownThreads,
    .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto and mosquitto-clients (make test installs them)"),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "needs openssl"))
struct RecordMQTTTLSTests {
    static let password = "s3cret-Pass-7781"

    @Test(.timeLimit(.minutes(5)))
    func mqttsWithACertificateAndAPassword() async throws {
        try await withTemporaryDirectory { dir in
            let certs = try TestCertificates(folder: dir)
            let broker = try MosquittoBroker(
                folder: dir, user: "rob", password: Self.password, listenerOptions: certs.listenerOptions)
            let subscriber = try MQTTSubscriber(
                broker: broker, folder: dir,
                arguments: [
                    "--cafile", certs.ca, "--cert", certs.clientCertificate, "--key", certs.clientKey, "-u", "rob",
                    "-P", Self.password,
                ])
            let db = dir + "/gpslog.sqlite"
            let recorded = try await runGPSLogAsync(
                ["record", "--source", "replay:sample?speed=0", "--geocode", "off", "--name", "Drive"], database: db,
                folder: dir)
            try #require(recorded.status == 0, "\(recorded.stderr)")

            let url = "mqtts://127.0.0.1:\(broker.port)"
            let tls = ["--ca-file", certs.ca, "--cert-file", certs.clientCertificate, "--key-file", certs.clientKey]
            // gpslog on the other side too: `serve --mqtt` over the same TLS, into a database of its own.
            let served = dir + "/served.sqlite"
            let serveFolder = dir + "/serve"
            try FileManager.default.createDirectory(atPath: serveFolder, withIntermediateDirectories: true)
            let serve = try BackgroundGPSLog(
                ["serve", "--listen", "127.0.0.1:0", "--mqtt", url, "--mqtt-username", "rob"] + tls, database: served,
                folder: serveFolder, environment: ["GPSLOG_MQTT_PASSWORD": Self.password])
            #expect(
                await waitUntilAsync(timeout: 30) { serve.stderr.contains("subscribed to owntracks/#") },
                "\(serve.stderr)")
            let upload = ["upload", "Drive", "--url", url, "--device-id", "rob/car", "--mqtt-username", "rob"] + tls

            let wrong = try await runGPSLogAsync(
                upload, database: db, environment: ["GPSLOG_MQTT_PASSWORD": "wrong-Pass-5512"], folder: dir)
            #expect(wrong.status != 0)
            #expect(
                wrong.stderr.contains("not connected to the MQTT broker \(url)/owntracks/rob/car"), "\(wrong.stderr)")
            #expect(
                wrong.stderr.contains("refused the connection: Connection Refused: not authorised"), "\(wrong.stderr)")
            #expect(!(wrong.stderr + wrong.stdout).contains("wrong-Pass-5512"), "the password is never shown")

            let noCertificate = try await runGPSLogAsync(
                [
                    "upload", "Drive", "--url", url, "--device-id", "rob/car", "--mqtt-username", "rob", "--ca-file",
                    certs.ca, "--timeout", "5s",
                ], database: db, environment: ["GPSLOG_MQTT_PASSWORD": Self.password],
                folder: dir)
            #expect(noCertificate.status != 0)
            #expect(noCertificate.stderr.contains("not connected to the MQTT broker"), "\(noCertificate.stderr)")
            #expect(noCertificate.stderr.contains("over TLS: check --ca-file"), "\(noCertificate.stderr)")
            #expect(!noCertificate.stderr.contains(Self.password))

            let passwordFile = dir + "/mqtt-password"
            try (Self.password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
            chmod(passwordFile, 0o600)
            let good = try await runGPSLogAsync(
                upload + ["--mqtt-password-file", passwordFile], database: db, folder: dir)
            #expect(good.status == 0, "\(good.stderr)")
            #expect(
                good.stdout.contains("Published 'Drive' to \(url)/owntracks/rob/car: 147 locations"), "\(good.stdout)")
            #expect(!(good.stderr + good.stdout).contains(Self.password))
            #expect(
                await waitUntilAsync(timeout: 30) {
                    subscriber.messages.filter { $0.topic == "owntracks/rob/car" }.count == 147
                }, "\(subscriber.messages.count)")
            #expect(
                await waitUntilAsync(timeout: 30) { ServeMQTTTests.entries(served, session: "rob/car") == 147 },
                "\(serve.stderr)")

            // A recorder with the wrong password records all the same, says why nothing goes, and keeps it queued.
            let live = try await runGPSLogAsync(
                [
                    "record", "--source", "replay:sample?speed=20", "--geocode", "off", "--name", "Refused", "--send",
                    url, "--device-id", "rob/car", "--mqtt-username", "rob",
                ] + tls, database: db,
                environment: ["GPSLOG_MQTT_PASSWORD": "wrong-Pass-5512"], folder: dir)
            #expect(live.status == 0, "\(live.stderr)")
            #expect(live.stderr.contains("refused the connection"), "\(live.stderr)")
            #expect(live.stderr.contains("locations were not confirmed by \(url)/owntracks/rob/car"), "\(live.stderr)")
            #expect(!live.stderr.contains("wrong-Pass-5512"))
        }
    }

    @Test func badPublishingOptionsAreRefusedBeforeAnythingStarts() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let big = dir + "/big.jpg"
            try Data([0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0, count: 70_000)).write(to: URL(fileURLWithPath: big))
            let text = dir + "/face.txt"
            try "not a picture".write(toFile: text, atomically: true, encoding: .utf8)
            let cases: [([String], String)] = [
                (["--device-id", "rob/+"], "is not OwnTracks' user/device"),
                (["--device-id", "rob"], "is not OwnTracks' user/device"),
                ([], "--device-id user/device is needed"),
                (["--device-id", "rob/pi", "--qos", "3"], "--qos must be 0, 1 or 2"),
                (["--device-id", "rob/pi", "--card-name", "Rob", "--card-face", big], "larger than 64 KB"),
                (["--device-id", "rob/pi", "--card-name", "Rob", "--card-face", text], "not a JPEG or PNG"),
                (["--device-id", "rob/pi", "--ca-file", text], "are for an mqtts:// broker"),
            ]
            for (options, words) in cases {
                let r = try await runGPSLogAsync(
                    ["record", "--source", "replay:sample", "--send", "mqtt://127.0.0.1:1"] + options, database: db,
                    folder: dir)
                #expect(r.status != 0 && r.stderr.contains(words), "\(options): \(r.stderr)")
            }
            let inURL = try await runGPSLogAsync(
                ["upload", "x", "--url", "mqtt://rob:hunter2-secret@127.0.0.1:1", "--device-id", "rob/pi"],
                database: db, folder: dir)
            #expect(inURL.status != 0 && inURL.stderr.contains("Put no password in the URL"), "\(inURL.stderr)")
            #expect(!inURL.stderr.contains("hunter2-secret"))
        }
    }
}
