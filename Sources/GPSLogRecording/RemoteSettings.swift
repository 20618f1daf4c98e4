// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSampling
import GPSLogUpload

/// One setting of a server's `set` (Overland's remote configuration), read for a recorder on Linux.
enum RemoteChange: Equatable {
    /// `send_interval`; nil: off (only on `send-now` and at the end).
    case sendInterval(Duration?)
    /// `main.logging_mode`.
    case loggingMode(LoggingMode)
    /// `main.batch_size`.
    case batchSize(Int)
    /// `main.min_distance` in metres; nil: off.
    case minDistance(Double?)
    /// `main.min_time` in milliseconds; nil: off (Overland's 1 s is no filter).
    case minTime(Int64?)
    /// `main.desired_accuracy` as the accuracy filter in metres; nil (nav, best): none.
    case maxAccuracy(Double?)
    /// `main.pause_automatically`: pause after 10 minutes standing still, or never.
    case pause(Int64?)
    /// `main.resume_with_geofence` in metres; nil (off): the stop radius.
    case resumeRadius(Double?)
    /// `main.tracking_mode`: nil for GPS Log's interval sampling (standard, both); significant; manual (off).
    case monitoring(MonitoringMode?)
    /// `main.visit_tracking`.
    case visits(Bool)
    /// `trip_mode`: the mode of the next `trip start` without `--mode`.
    case tripMode(TripMode)
    /// `trip.min_distance` in metres; nil: the main setting's.
    case tripMinDistance(Double?)
    /// `trip.min_time` in milliseconds; nil: the main setting's.
    case tripMinTime(Int64?)
    /// `trip.desired_accuracy` in metres; nil (nav, best): no filter during trips.
    case tripMaxAccuracy(Double?)

    /// The `record` option the setting stands for: a flag given on the command line wins over a kept setting.
    var option: String {
        switch self {
        case .sendInterval: return "send-interval"
        case .loggingMode: return "logging-mode"
        case .batchSize: return "batch-size"
        case .minDistance: return "min-distance"
        case .minTime: return "min-time"
        case .maxAccuracy: return "max-accuracy"
        case .pause: return "pause-when-stopped"
        case .resumeRadius: return "resume-radius"
        case .monitoring: return "monitoring"
        case .visits: return "visits"
        case .tripMode: return "mode"
        case .tripMinDistance: return "trip-min-distance"
        case .tripMinTime: return "trip-min-time"
        case .tripMaxAccuracy: return "trip-max-accuracy"
        }
    }

    /// What reading a setting gave.
    enum Reading: Equatable {
        case change(RemoteChange)
        /// `send_interval: off` or `tracking_mode: off` without `--allow-remote-off`.
        case refused(String)
        /// A key with no meaning here (yet); said once in the log.
        case notApplicable(String)
        /// A value or key gpslog does not know.
        case invalid(String)
    }

    /// Reads one setting. Values are Overland's: "m" after a duration is minutes, after a distance metres.
    static func read(_ s: ServerSetting, allowRemoteOff: Bool) -> Reading {
        let v = s.value.lowercased()
        func bad() -> Reading { .invalid("'\(s.value.visible)' is not a value gpslog knows for \(s.path)") }
        switch (s.section, s.name) {
        case ("trip", "min_distance"):
            if v == "off" { return .change(.tripMinDistance(nil)) }
            guard let m = distance(v) else { return bad() }
            return .change(.tripMinDistance(m))
        case ("trip", "min_time"):
            guard let ms = duration(v) else { return bad() }
            return .change(.tripMinTime(ms <= 1000 ? nil : ms))
        case ("trip", "desired_accuracy"):
            if v == "nav" || v == "best" { return .change(.tripMaxAccuracy(nil)) }
            guard let m = distance(v), m > 0 else { return bad() }
            return .change(.tripMaxAccuracy(m))
        case ("trip", _):
            return .notApplicable("only the trip's min_distance, min_time and desired_accuracy apply to a recorder")
        case ("top", "send_interval"):
            if v == "off" {
                return allowRemoteOff
                    ? .change(.sendInterval(nil))
                    : .refused(
                        "send_interval off would stop sending, and the server could never change it back; "
                            + "start record with --allow-remote-off to accept it")
            }
            guard let ms = duration(v), ms > 0 else { return bad() }
            return .change(.sendInterval(.milliseconds(ms)))
        case ("top", "trip_mode"):
            guard let mode = TripMode(rawValue: v) else { return bad() }
            return .change(.tripMode(mode))
        case ("main", "logging_mode"):
            guard let mode = LoggingMode(rawValue: v) else { return bad() }
            return .change(.loggingMode(mode))
        case ("main", "batch_size"):
            guard let n = Int(v), (1...10_000).contains(n) else { return bad() }
            return .change(.batchSize(n))
        case ("main", "min_distance"):
            if v == "off" { return .change(.minDistance(nil)) }
            guard let m = distance(v) else { return bad() }
            return .change(.minDistance(m))
        case ("main", "min_time"):
            guard let ms = duration(v) else { return bad() }
            return .change(.minTime(ms <= 1000 ? nil : ms))
        case ("main", "desired_accuracy"):
            if v == "nav" || v == "best" { return .change(.maxAccuracy(nil)) }
            guard let m = distance(v), m > 0 else { return bad() }
            return .change(.maxAccuracy(m))
        case ("main", "pause_automatically"):
            guard let on = Bool(v) else { return bad() }
            return .change(.pause(on ? StayRules.defaultPauseAfterMilliseconds : nil))
        case ("main", "resume_with_geofence"):
            if v == "off" { return .change(.resumeRadius(nil)) }
            guard let m = distance(v), m > 0 else { return bad() }
            return .change(.resumeRadius(m))
        case ("main", "visit_tracking"):
            guard let on = Bool(v) else { return bad() }
            return .change(.visits(on))
        case ("main", "tracking_mode"):
            switch v {
            case "standard", "both": return .change(.monitoring(nil))
            case "significant": return .change(.monitoring(.significant))
            case "off":
                return allowRemoteOff
                    ? .change(.monitoring(.manual))
                    : .refused(
                        "tracking_mode off would record nothing until a mark, so the server might never be called "
                            + "again; start record with --allow-remote-off to accept it")
            default: return bad()
            }
        case ("main", "activity_type"), ("main", "background_indicator"), ("main", "prevent_screen_lock"):
            return .notApplicable("an iOS setting with no meaning on Linux")
        default:
            return .invalid("\(s.path) is not a setting gpslog knows")
        }
    }

    /// "30s", "5m" (minutes), "1h", or a bare number of seconds, in milliseconds.
    static func duration(_ v: String) -> Int64? {
        for (suffix, factor) in [("ms", 1.0), ("s", 1000), ("m", 60_000), ("h", 3_600_000)] where v.hasSuffix(suffix) {
            return Double(v.dropLast(suffix.count)).flatMap { $0 >= 0 && $0 < 1e9 ? Int64($0 * factor) : nil }
        }
        return Double(v).flatMap { $0 >= 0 && $0 < 1e9 ? Int64($0 * 1000) : nil }
    }

    /// "50m" (metres), "1km", or a bare number of metres.
    static func distance(_ v: String) -> Double? {
        let value: Double?
        if v.hasSuffix("km") {
            value = Double(v.dropLast(2)).map { $0 * 1000 }
        } else if v.hasSuffix("m") {
            value = Double(v.dropLast())
        } else {
            value = Double(v)
        }
        return value.flatMap { $0 >= 0 && $0.isFinite && $0 < 1e8 ? $0 : nil }
    }
}

/// How a setting's value is shown in the log: `50m`, `off`, `10s`.
enum SettingText {
    static func distance(_ m: Double?) -> String { m.map { "\(Int($0.rounded()))m" } ?? "off" }
    static func milliseconds(_ ms: Int64?) -> String {
        guard let ms else { return "off" }
        return ms % 1000 == 0 ? "\(ms / 1000)s" : "\(ms)ms"
    }
    static func duration(_ d: Duration?) -> String {
        milliseconds(d.map { $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000 })
    }
}

/// Reading a server's `set` outside a recording (`gpslog upload`).
public enum ServerSettingsFilter {
    /// The settings that a recording would accept and keep: not `send_interval: off` or `tracking_mode: off`
    /// (without `allowRemoteOff`), nor values or keys gpslog does not know.
    public static func keepable(_ settings: [ServerSetting], allowRemoteOff: Bool = false) -> [ServerSetting] {
        settings.filter {
            if case .change = RemoteChange.read($0, allowRemoteOff: allowRemoteOff) { true } else { false }
        }
    }
}
