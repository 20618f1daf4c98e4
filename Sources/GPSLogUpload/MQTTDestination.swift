// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Where and how `record --send mqtt://` and `upload --url mqtt://` publish: a broker, OwnTracks' topic
/// `owntracks/USER/DEVICE`, the credentials and TLS files, and what the apps publish besides locations.
public struct MQTTDestination: Sendable {
    /// The broker's host name or address.
    public var host: String
    /// The broker's port: from the URL, else 1883 (8883 for `mqtts://`).
    public var port: Int
    /// `mqtts://`: TLS, checked against `caFile`.
    public var tls: Bool
    /// OwnTracks' `user/device`: the topic is `owntracks/user/device`.
    public var userDevice: String
    /// The user name sent at CONNECT (from the URL); nil: none.
    public var username: String?
    /// Printed, it shows `***`; it never leaves the CONNECT.
    public var password: SecretText?
    /// The CA certificate that signs the broker's (`mqtts://`); the client certificate and key, when the broker
    /// asks for one.
    public var caFile: String?
    /// The client certificate file, when the broker asks for one.
    public var certificateFile: String?
    /// The client certificate's private key file.
    public var keyFile: String?
    /// QoS of every message: 1 (OwnTracks' default) counts a message as sent at the broker's PUBACK; 2 at PUBCOMP;
    /// 0 once written to the socket.
    public var qos: Int32 = 1
    /// OwnTracks' `tid`: two characters by convention; the last two of the device by default.
    public var trackerID: String
    /// OwnTracks' card (`_type: card` on `.../info`, retained): the name, and a face as base64 JPEG or PNG.
    public var card: (name: String, face: String?)?
    /// Home Assistant's discovery (`--home-assistant`): its config at each connection, attributes with each location.
    public var homeAssistant: HomeAssistantDiscovery?

    /// The longest `user/device` taken: topics are short, and a user's name ends up in file names elsewhere.
    static let maxUserDevice = 200

    /// A destination from `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]` (a user name may come before the host;
    /// a password may not) and `user/device`.
    public init(url: String, userDevice: String) throws {
        guard let c = URLComponents(string: url), let scheme = c.scheme?.lowercased(),
            ["mqtt", "mqtts"].contains(scheme),
            let host = c.host, !host.isEmpty, c.path.isEmpty || c.path == "/", c.query == nil
        else { throw MQTTSendError.badURL(Destination.redact(url)) }
        guard c.password == nil else { throw MQTTSendError.passwordInURL }
        let parts = userDevice.split(separator: "/", omittingEmptySubsequences: false)
        // The topic's two levels: no wildcard, no further level, nothing a broker refuses in a topic.
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty }), userDevice.count <= Self.maxUserDevice,
            !userDevice.contains(where: { "+#".contains($0) || $0.isASCII && $0.asciiValue! < 0x20 })
        else { throw MQTTSendError.badUserDevice(userDevice.visible) }
        self.host = host
        tls = scheme == "mqtts"
        port = c.port ?? (tls ? 8883 : 1883)
        self.userDevice = userDevice
        username = c.user
        trackerID = String(parts[1].suffix(2))
    }

    /// `owntracks/user/device`: locations and the last will; `/event`, `/waypoint` and `/info` below it.
    public var baseTopic: String { "owntracks/" + userDevice }

    /// The broker and topic, as they may be shown (no credentials).
    public var displayURL: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "mqtts" : "mqtt")://\(h):\(port)/\(baseTopic)"
    }

    /// The key under which progress is stored (as `Destination.progressKey`): another user name or password for the
    /// same broker and topic resumes where the last one stopped.
    public var progressKey: String { "mqtt " + displayURL }
}

/// Why MQTT publishing could not start or stopped. What the broker confirmed before stays confirmed.
public enum MQTTSendError: LocalizedError, Equatable {
    case badURL(String)
    case passwordInURL
    case badUserDevice(String)
    /// Not connected (the broker's refusal or the network's error, when known).
    case notConnected(broker: String, reason: String?)
    /// Messages were published but the broker did not confirm them in time.
    case notConfirmed(broker: String, count: Int, seconds: Double)
    /// libmosquitto's own error (its message), e.g. a TLS file it cannot read.
    case library(String)

    /// What is wrong and what to do, for people; never the password.
    public var errorDescription: String? {
        switch self {
        case .badURL(let url):
            return "'\(url)' is not an MQTT broker: give mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (no path or query)."
        case .passwordInURL:
            return "Put no password in the URL: give it in $GPSLOG_MQTT_PASSWORD or --mqtt-password-file."
        case .badUserDevice(let given):
            return "--device-id '\(given)' is not OwnTracks' user/device (two non-empty names, no + or #, at most "
                + "\(MQTTDestination.maxUserDevice) characters): the topic is owntracks/user/device."
        case .notConnected(let broker, let reason):
            return "not connected to the MQTT broker \(broker)\(reason.map { ": \($0)" } ?? ""). What waits stays "
                + "queued in the database."
        case .notConfirmed(let broker, let count, let seconds):
            return
                "the MQTT broker \(broker) did not confirm \(counted(count, "message")) within \(Int(seconds)) s; they stay "
                + "queued and go again (the broker may see them twice)."
        case .library(let message):
            return message
        }
    }
}
