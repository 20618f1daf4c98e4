// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogConfig
import GPSLogModel
import GPSLogUpload

/// How gpslog logs in to an MQTT broker: shared by `serve --mqtt` and `record --send mqtt://` / `upload`.
struct MQTTLoginOptions: ParsableArguments {
    @Option(help: "MQTT user name (the password: $GPSLOG_MQTT_PASSWORD or --mqtt-password-file).")
    var mqttUsername: String?
    @Option(help: ArgumentHelp("File holding the MQTT password (one trailing newline is ignored).", valueName: "path"))
    var mqttPasswordFile: String?
    @Option(help: ArgumentHelp("CA certificate of an mqtts:// broker (default: the system's).", valueName: "path"))
    var caFile: String?
    @Option(help: ArgumentHelp("Client certificate for an mqtts:// broker that asks for one (PEM).", valueName: "path"))
    var certFile: String?
    @Option(help: ArgumentHelp("The client certificate's private key (PEM).", valueName: "path"))
    var keyFile: String?

    func validate() throws {
        guard !OptionChecks.deferred else { return }  // run once the config settings are applied
        if mqttPasswordFile != nil, ProcessInfo.processInfo.environment["GPSLOG_MQTT_PASSWORD"] != nil {
            throw ValidationError("Give $GPSLOG_MQTT_PASSWORD or --mqtt-password-file, not both.")
        }
        if (certFile == nil) != (keyFile == nil) { throw ValidationError("Give --cert-file and --key-file together.") }
        for (name, path) in [("--ca-file", caFile), ("--cert-file", certFile), ("--key-file", keyFile)] {
            if let path, !FileManager.default.isReadableFile(atPath: path) {
                throw ValidationError("\(name) \(path.visible): cannot read it.")
            }
        }
    }

    /// Checks that TLS files go with an mqtts:// broker.
    func validate(tls: Bool) throws {
        if !tls, caFile != nil || certFile != nil {
            throw ValidationError("--ca-file, --cert-file and --key-file are for an mqtts:// broker.")
        }
    }

    /// The password from $GPSLOG_MQTT_PASSWORD or --mqtt-password-file; nil when neither is given.
    func password() throws -> SecretText? {
        if let file = mqttPasswordFile {
            if PrivateFiles.isReadableByOthers(file) { TokenFileWarning.once(file) }
            do { return SecretText(try PrivateFiles.secret(at: file)) } catch {
                throw ValidationError(error.errorDescription ?? "cannot read --mqtt-password-file")
            }
        }
        return ProcessInfo.processInfo.environment["GPSLOG_MQTT_PASSWORD"].map(SecretText.init)
    }
}

/// `record --send mqtt://...` and `upload --url mqtt://...`: what OwnTracks' apps publish besides locations.
struct MQTTPublishOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "MQTT QoS of every message: 1 counts a message as sent at the broker's PUBACK.", valueName: "0|1|2"))
    var qos: Int32 = 1
    @Option(help: "OwnTracks' tracker id (tid), two characters by convention (default: the device's last two).")
    var trackerID: String?
    @Option(help: "Publish OwnTracks' card with this name (retained, on owntracks/USER/DEVICE/info).")
    var cardName: String?
    @Option(help: ArgumentHelp("A JPEG or PNG picture for the card (at most 64 KB).", valueName: "path"))
    var cardFace: String?
    @Option(
        help: ArgumentHelp(
            "Messages at most per second or minute (20/s, 300/min), or off: a broker keeps only so many messages "
                + "for a slow subscriber (Mosquitto's max_queued_messages) and drops the rest, though it confirmed them.",
            valueName: "N/s|N/min|off"))
    var mqttRate = "20/s"
    @Flag(
        help:
            "Announce the device to Home Assistant (MQTT discovery: a GPS device tracker, retained) and publish each location's attributes on gpslog/USER/DEVICE/attributes."
    )
    var homeAssistant = false
    @Option(help: "Home Assistant's MQTT discovery prefix.") var homeAssistantPrefix = "homeassistant"
    @OptionGroup var login: MQTTLoginOptions

    static let maxFace = 64 << 10

    /// Messages a second from `--mqtt-rate`: nil for off; `.none` (invalid) for anything else.
    static func rate(_ text: String) -> Double?? {
        if text == "off" { return .some(nil) }
        let parts = text.split(separator: "/")
        guard parts.count == 2, let n = Double(parts[0]), n > 0, n.isFinite, n <= 100_000 else { return nil }
        switch parts[1] {
        case "s": return n
        case "min": return n / 60
        default: return nil
        }
    }

    /// The pace of `--mqtt-rate` (validated): messages a second, nil for off.
    var rate: Double? { Self.rate(mqttRate) ?? 20 }

    func validate() throws {
        guard !OptionChecks.deferred else { return }  // run once the config settings are applied
        if !(0...2).contains(qos) { throw ValidationError("--qos must be 0, 1 or 2.") }
        if Self.rate(mqttRate) == nil {
            throw ValidationError("--mqtt-rate must be N/s or N/min (20/s, 300/min), or off.")
        }
        if let t = trackerID, t.isEmpty || t.count > 8 || t.contains(where: { !$0.isLetter && !$0.isNumber }) {
            throw ValidationError("--tracker-id must be 1 to 8 letters or digits (OwnTracks uses two).")
        }
        if let name = cardName, name.trimmingCharacters(in: .whitespaces).isEmpty || name.count > 100 {
            throw ValidationError("--card-name must be 1 to 100 characters.")
        }
        if cardFace != nil, cardName == nil { throw ValidationError("--card-face goes with --card-name.") }
        if !HomeAssistantDiscovery.isValidPrefix(homeAssistantPrefix) {
            throw ValidationError(
                "--home-assistant-prefix '\(homeAssistantPrefix.visible)' must be topic levels without + or # or "
                    + "empty levels, such as homeassistant.")
        }
    }

    /// The picture as base64, checked to be a JPEG or PNG of at most 64 KB.
    func face() throws -> String? {
        guard let path = cardFace else { return nil }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let size = attributes?[.size] as? Int, size > Self.maxFace {
            throw CommandError.file(path: path, reason: "larger than 64 KB: too large for an OwnTracks card")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandError.file(path: path, reason: "cannot read it")
        }
        let jpeg = data.starts(with: [0xFF, 0xD8, 0xFF])
        let png = data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        guard jpeg || png else { throw CommandError.file(path: path, reason: "not a JPEG or PNG picture") }
        return data.base64EncodedString()
    }

    /// The destination for `url` (mqtt:// or mqtts://) and `--device-id user/device`.
    func destination(url: String, deviceID: String?) throws -> MQTTDestination {
        guard let deviceID else {
            throw ValidationError("--device-id user/device is needed to publish to MQTT (topic owntracks/user/device).")
        }
        var d = try MQTTDestination(url: url, userDevice: deviceID)
        try login.validate(tls: d.tls)
        if let user = login.mqttUsername { d.username = user }
        d.password = try login.password()
        if d.password != nil, d.username == nil {
            throw ValidationError("An MQTT password needs a user name: give --mqtt-username.")
        }
        d.caFile = login.caFile
        d.certificateFile = login.certFile
        d.keyFile = login.keyFile
        d.qos = qos
        if let t = trackerID { d.trackerID = t }
        if let name = cardName { d.card = (name, try face()) }
        if homeAssistant {
            let version = GPSLog.configuration.version.split(separator: "\n").first.map(String.init) ?? ""
            d.homeAssistant = HomeAssistantDiscovery(
                prefix: homeAssistantPrefix, name: cardName, softwareVersion: version)
        }
        return d
    }

    /// True when `url` names an MQTT broker rather than an HTTP server.
    static func isMQTT(_ url: String) -> Bool {
        let lower = url.lowercased()
        return lower.hasPrefix("mqtt://") || lower.hasPrefix("mqtts://")
    }
}
