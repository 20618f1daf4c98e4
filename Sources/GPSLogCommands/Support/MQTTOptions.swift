// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogConfig
import GPSLogModel
import GPSLogReceiver

/// Where `serve --mqtt` subscribes, and how it logs in.
struct MQTTOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Also store what an MQTT broker carries (mqtt://HOST[:PORT], mqtts:// for TLS), as the OwnTracks Recorder does.",
            valueName: "url"))
    var mqtt: String?
    @Option(help: "The topic filter to subscribe to.") var topic = "owntracks/#"
    @Option(
        help: ArgumentHelp(
            "The MQTT client id, kept from start to start so that the broker keeps what comes while serve is away (default: gpslog-serve- and a hash of this machine's name and the database).",
            valueName: "id"))
    var mqttClientID: String?
    @OptionGroup var login: MQTTLoginOptions

    /// The broker's address from `--mqtt`; nil without it.
    func endpoint() throws -> (host: String, port: Int, tls: Bool)? {
        guard let mqtt else { return nil }
        guard let url = URLComponents(string: mqtt), let scheme = url.scheme, ["mqtt", "mqtts"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw ValidationError(
                "--mqtt must be mqtt://HOST[:PORT] or mqtts://HOST[:PORT], e.g. mqtt://127.0.0.1:1883.")
        }
        if url.password != nil {
            throw ValidationError(
                "Put no password in --mqtt: give it in $GPSLOG_MQTT_PASSWORD or --mqtt-password-file.")
        }
        let tls = scheme == "mqtts"
        return (host, url.port ?? (tls ? 8883 : 1883), tls)
    }

    func validate() throws {
        guard !OptionChecks.deferred else { return }  // run once the config settings are applied
        _ = try endpoint()
        guard MQTTSubscription.isValidTopicFilter(topic) else {
            throw ValidationError(
                "--topic '\(topic.visible)' is not an MQTT topic filter (e.g. owntracks/# or owntracks/+/+).")
        }
        if let tls = try endpoint()?.tls { try login.validate(tls: tls) }
        if let id = mqttClientID, !MQTTSubscription.isValidClientID(id) {
            throw ValidationError(
                "--mqtt-client-id '\(id.visible)' must be 1 to 23 letters, digits, '-' or '_' (what every broker takes)."
            )
        }
    }

    /// The subscription `serve` makes, with the client id given or one of this machine and `database`; nil without
    /// `--mqtt`.
    func subscription(database: String) throws -> MQTTSubscription? {
        guard let (host, port, tls) = try endpoint() else { return nil }
        let user = login.mqttUsername ?? URLComponents(string: mqtt ?? "")?.user
        // Debian's bundle of the system's CA certificates (ca-certificates).
        let ca = tls ? (login.caFile ?? "/etc/ssl/certs/ca-certificates.crt") : nil
        var subscription = MQTTSubscription(
            host: host, port: port, topic: topic, username: user, password: try login.password(), caFile: ca)
        subscription.certificateFile = login.certFile
        subscription.keyFile = login.keyFile
        subscription.clientID = mqttClientID ?? MQTTSubscription.defaultClientID(database: database)
        return subscription
    }
}
