// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Home Assistant's MQTT discovery of the recorder as a GPS device tracker (`record --send mqtt:// --home-assistant`),
/// as https://www.home-assistant.io/integrations/device_tracker.mqtt/ and
/// https://www.home-assistant.io/integrations/mqtt/#mqtt-discovery describe it: a retained config on
/// `PREFIX/device_tracker/gpslog/OBJECT/config`, and each location's `latitude`, `longitude` and `gps_accuracy` as
/// JSON attributes on a topic of its own (OwnTracks' payload says `lat` and `lon`, which Home Assistant does not
/// read there). Availability comes from OwnTracks' topic, where the last will (`_type: lwt`) goes when the recorder
/// vanishes: the config's template reads `_type`, `location` meaning available and `lwt` not.
public struct HomeAssistantDiscovery: Sendable, Equatable {
    /// The discovery prefix Home Assistant listens on (`homeassistant` unless its MQTT settings change it).
    public var prefix: String
    /// The entity's and the device's name (the card's name when one is given, else the device's).
    public var name: String?
    /// gpslog's version, for the device block.
    public var softwareVersion: String

    /// Discovery on `prefix`, named `name` (nil: the device part of `user/device`).
    public init(prefix: String = "homeassistant", name: String? = nil, softwareVersion: String) {
        self.prefix = prefix
        self.name = name
        self.softwareVersion = softwareVersion
    }

    /// What the availability template makes of a location message, and of the last will.
    public static let available = "location"
    /// See `available`.
    public static let notAvailable = "lwt"

    /// A prefix is one or more topic levels without wildcards, control characters or empty levels.
    public static func isValidPrefix(_ prefix: String) -> Bool {
        !prefix.isEmpty && prefix.count <= 100
            && !prefix.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty }
            && !prefix.contains(where: { "+#".contains($0) || $0.isASCII && $0.asciiValue! < 0x20 })
    }

    /// `user_device` with every character outside `[A-Za-z0-9_-]` made `_`: Home Assistant's object id.
    static func objectID(_ d: MQTTDestination) -> String {
        String(
            d.userDevice.map { c -> Character in
                c.isASCII && (c.isLetter || c.isNumber || c == "-") ? c : "_"
            })
    }

    /// `PREFIX/device_tracker/gpslog/USER_DEVICE/config`.
    public func configTopic(_ d: MQTTDestination) -> String {
        "\(prefix)/device_tracker/gpslog/\(Self.objectID(d))/config"
    }

    /// `gpslog/USER/DEVICE/attributes`: outside `owntracks/`, whose subscribers (the OwnTracks Recorder) expect only
    /// OwnTracks' messages there.
    public static func attributesTopic(_ d: MQTTDestination) -> String { "gpslog/\(d.userDevice)/attributes" }

    /// The config message, published retained at each connection.
    public func configMessage(_ d: MQTTDestination) -> [UInt8] {
        let id = "gpslog_" + Self.objectID(d)
        let shown = name ?? String(d.userDevice.split(separator: "/").last ?? "gpslog")
        let config = Config(
            name: shown, uniqueId: id, jsonAttributesTopic: Self.attributesTopic(d),
            availability: [
                .init(
                    topic: d.baseTopic, valueTemplate: "{{ value_json._type }}",
                    payloadAvailable: Self.available, payloadNotAvailable: Self.notAvailable)
            ],
            sourceType: "gps",
            device: .init(
                identifiers: [id], name: shown, manufacturer: "gpslog", model: "gpslog record",
                swVersion: softwareVersion))
        return Array((try? Self.encoder.encode(config)) ?? Data())
    }

    /// One location's attributes: `latitude`, `longitude`, `gps_accuracy` (m, when known) as Home Assistant reads
    /// them, and `altitude` (m), `battery_level` (%) and `time` (ISO 8601) to show.
    public static func attributesMessage(_ e: Entry) -> [UInt8] {
        let attributes = Attributes(
            latitude: sevenPlaces(e.latitude), longitude: sevenPlaces(e.longitude),
            gpsAccuracy: e.horizontalAccuracy.flatMap(finite),
            altitude: e.altitude.flatMap(finite), batteryLevel: e.batteryLevel.map { ($0 * 100).rounded() },
            time: e.time.iso8601())
        return Array((try? Self.encoder.encode(attributes)) ?? Data())
    }

    private static func finite(_ v: Double) -> Double? { v.isFinite ? v : nil }

    /// Degrees to 7 decimals (about 1 cm), as gpslog writes coordinates everywhere.
    private static func sevenPlaces(_ v: Double) -> Double { (v * 1e7).rounded() / 1e7 }

    /// An encoder of the keys as Home Assistant spells them (`unique_id`, `gps_accuracy`).
    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    struct Config: Encodable {
        struct Availability: Encodable {
            var topic: String
            var valueTemplate: String
            var payloadAvailable: String
            var payloadNotAvailable: String
        }
        struct Device: Encodable {
            var identifiers: [String]
            var name: String
            var manufacturer: String
            var model: String
            var swVersion: String
        }
        var name: String
        var uniqueId: String
        var jsonAttributesTopic: String
        var availability: [Availability]
        var sourceType: String
        var device: Device
    }

    struct Attributes: Encodable {
        var latitude: Double
        var longitude: Double
        var gpsAccuracy: Double?
        var altitude: Double?
        var batteryLevel: Double?
        var time: String
    }
}
