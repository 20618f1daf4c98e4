// SPDX-License-Identifier: MIT
// Home Assistant's MQTT discovery: https://www.home-assistant.io/integrations/mqtt/#mqtt-discovery (a retained
// config on `<discovery_prefix>/<component>/[<node_id>/]<object_id>/config`, `unique_id` and a `device` block with
// `identifiers`, `name`, `manufacturer`, `model`, `sw_version`), and the MQTT device tracker,
// https://www.home-assistant.io/integrations/device_tracker.mqtt/: `json_attributes_topic` whose JSON holds
// `latitude`, `longitude` and `gps_accuracy`, `source_type: gps`, and `availability` entries of `topic`,
// `value_template`, `payload_available` and `payload_not_available` (the template's result is compared with them).
import Foundation
import GPSLogTestSupport
import Testing

@Suite(
    .ownThreads,
    .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto and mosquitto-clients (make test installs them)"))
struct RecordHomeAssistantTests {
    static let configTopic = "homeassistant/device_tracker/gpslog/rob_pi/config"

    @Test(.timeLimit(.minutes(5)))
    func theRecorderAnnouncesItselfSendsItsAttributesAndGoesUnavailableWhenKilled() async throws {
        try await withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let subscriber = try MQTTSubscriber(broker: broker, filter: "#", folder: dir)
            let db = dir + "/gpslog.sqlite"
            let recorder = try BackgroundGPSLog(
                [
                    // 1: the 146 s sample is still being recorded at the kill (a recorder that ends normally
                    // disconnects cleanly and leaves no last will).
                    "record", "--source", "replay:sample?speed=1", "--geocode", "off", "--name", "HA",
                    "--commit-every", "1s", "--send", "mqtt://127.0.0.1:\(broker.port)", "--device-id", "rob/pi",
                    "--card-name", "Rob's Pi", "--home-assistant",
                ], database: db, folder: dir)
            defer { kill(recorder.process.processIdentifier, SIGKILL) }
            let attributesTopic = "gpslog/rob/pi/attributes"
            #expect(
                await waitUntilAsync(timeout: 60) {
                    subscriber.messages.filter { $0.topic == attributesTopic }.count >= 5
                }, "\(recorder.stderr)")

            // The config, retained, with the documented keys only.
            let config = try #require(subscriber.messages.first { $0.topic == Self.configTopic }?.json)
            #expect(
                config.keys.sorted() == [
                    "availability", "device", "json_attributes_topic", "name", "source_type", "unique_id",
                ])
            #expect(config["name"] as? String == "Rob's Pi" && config["unique_id"] as? String == "gpslog_rob_pi")
            #expect(config["source_type"] as? String == "gps")
            #expect(config["json_attributes_topic"] as? String == attributesTopic)
            let device = try #require(config["device"] as? [String: Any])
            #expect(device.keys.sorted() == ["identifiers", "manufacturer", "model", "name", "sw_version"])
            #expect(device["identifiers"] as? [String] == ["gpslog_rob_pi"] && device["name"] as? String == "Rob's Pi")
            #expect(device["manufacturer"] as? String == "gpslog" && device["sw_version"] as? String == "0.1.0")
            let availability = try #require((config["availability"] as? [[String: Any]])?.first)
            #expect(
                availability.keys.sorted() == ["payload_available", "payload_not_available", "topic", "value_template"])
            #expect(availability["topic"] as? String == "owntracks/rob/pi")
            #expect(availability["value_template"] as? String == "{{ value_json._type }}")
            let (online, offline) = (
                try #require(availability["payload_available"] as? String),
                try #require(availability["payload_not_available"] as? String)
            )

            // Each location's attributes follow its OwnTracks message, with the same place and accuracy.
            let got = subscriber.messages
            let locations = got.filter { $0.topic == "owntracks/rob/pi" }.compactMap(\.json)
            let attributes = got.filter { $0.topic == attributesTopic }.compactMap(\.json)
            #expect(attributes.count <= locations.count && attributes.count >= 5)
            for (a, l) in zip(attributes, locations) {
                #expect(Set(a.keys).isSuperset(of: ["latitude", "longitude", "time"]), "\(a)")
                // Both to 7 decimals.
                #expect(abs((a["latitude"] as? Double ?? 0) - (l["lat"] as? Double ?? 1)) < 1e-9, "\(a) \(l)")
                #expect(abs((a["longitude"] as? Double ?? 0) - (l["lon"] as? Double ?? 1)) < 1e-9, "\(a) \(l)")
                if let acc = l["acc"] as? Int {
                    #expect(abs((a["gps_accuracy"] as? Double ?? -9) - Double(acc)) <= 0.5, "\(a) \(l)")
                }
                // The availability template on a location gives the available payload.
                #expect(l["_type"] as? String == online)
            }
            #expect(attributes.contains { $0["gps_accuracy"] is Double }, "the sample's fixes carry an accuracy")

            // Killed: the broker publishes the last will, which the template reads as not available.
            kill(recorder.process.processIdentifier, SIGKILL)
            _ = await recorder.exitStatus(timeout: 30)
            #expect(
                await waitUntilAsync(timeout: 30) {
                    subscriber.messages.contains {
                        $0.topic == "owntracks/rob/pi" && $0.json?["_type"] as? String == offline
                    }
                }, "\(broker.logText.suffix(2000))")

            // A Home Assistant that starts later still finds the config (retained).
            let later = try runMosquittoClient(
                "mosquitto_sub",
                [
                    "-p", "\(broker.port)", "-h", "127.0.0.1", "-t", Self.configTopic, "-C", "1", "-W", "10", "-F",
                    "%r|%t",
                ])
            #expect(later.output.contains("1|\(Self.configTopic)"), "\(later.output)")
        }
    }

    @Test func aBadPrefixIsRefused() async throws {
        let r = try runGPSLog([
            "record", "--send", "mqtt://127.0.0.1:1", "--device-id", "rob/pi", "--home-assistant",
            "--home-assistant-prefix", "home/#",
        ])
        #expect(r.status != 0)
        #expect(r.stderr.contains("--home-assistant-prefix 'home/#' must be topic levels"), "\(r.stderr)")
    }
}
