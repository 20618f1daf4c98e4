// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogGeocoding
import GPSLogModel
import GPSLogRecording
import GPSLogSampling
import GPSLogSources
import GPSLogUpload

/// How `record` thins fixes into entries.
struct SamplingOptions: ParsableArguments {
    @Option(help: "One entry per interval (e.g. 1s, 5s, 1m); fixes inside it are dropped.") var interval =
        DurationOption(argument: "1s")!
    @Option(help: "Drop fixes closer than this many metres to the last entry.") var minDistance: Double?
    @Option(help: "Drop fixes sooner than this after the last entry (e.g. 10s).") var minTime: DurationOption?
    @Option(help: "Drop fixes whose horizontal error is worse than this many metres.") var maxAccuracy: Double?
    @Option(help: "Degrees the heading must turn to write a heading-change entry.") var headingFilter: NumberOption = 5
    @Option(help: "Radius in metres of \"the same place\" for instance counts.") var samePlace = NumberOption(
        SamplingPolicy.defaultSamePlaceRadius)
    @Option(help: "Drop fixes implying more than this speed in km/h, unless the next ones confirm them (off: none).")
    var maxSpeed: String = String(Int(SamplingPolicy.defaultMaxSpeed * 3.6))

    func validate() throws {
        guard !OptionChecks.deferred else { return }  // run once the config settings are applied
        if headingFilter.value < 0 || headingFilter.value >= 180 {
            throw ValidationError("--heading-filter must be from 0 to 180 degrees.")
        }
        if let d = minDistance, d < 0 { throw ValidationError("--min-distance must not be negative.") }
        if let a = maxAccuracy, a <= 0 { throw ValidationError("--max-accuracy must be positive.") }
        if maxSpeed != "off", Double(maxSpeed).map({ $0 > 0 && $0.isFinite }) != true {
            throw ValidationError("--max-speed must be a speed in km/h, such as 450, or off.")
        }
    }

    /// The policy; `--mode plane` has no speed limit.
    func policy(mode: TripMode?) -> SamplingPolicy {
        let limit = maxSpeed == "off" || mode == .plane ? nil : Double(maxSpeed).map { $0 / 3.6 }
        return SamplingPolicy(
            intervalMilliseconds: interval.milliseconds, minDistance: minDistance,
            minTimeMilliseconds: minTime?.milliseconds,
            maxAccuracy: maxAccuracy, samePlaceRadius: samePlace.value, headingFilter: headingFilter.value,
            maxSpeed: limit)
    }
}

/// How `record` names its sessions and when it starts a new one.
struct SessionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Session name, or a template filled from each session's first fix (%Y %m %d %H %M %S %F %R %j %z).",
            discussion: "Default: the start time, \(SessionNameTemplate.defaultPattern) (as GPS Log names sessions)."))
    var name: String?
    @Option(
        help: ArgumentHelp(
            "Start a new session: gap:DURATION (no fix for that long), stop:DURATION (moving again after standing "
                + "still that long), daily (at midnight). Repeat to combine.", valueName: "rule"))
    var split: [String] = []
    @Option(
        help: "Time zone of --split daily and of names (an IANA name such as Europe/Amsterdam; default: the system's).")
    var timezone: String?

    func validate() throws {
        guard !OptionChecks.deferred else { return }  // run once the config settings are applied
        if let name, name.allSatisfy(\.isWhitespace) { throw ValidationError("--name must not be empty.") }
        if let timezone, TimeZone(identifier: timezone) == nil {
            throw ValidationError(
                "--timezone '\(timezone.visible)' is not a time zone: use an IANA name such as Europe/Amsterdam or UTC."
            )
        }
        _ = try rules()
    }

    var zone: TimeZone { timezone.flatMap(TimeZone.init(identifier:)) ?? .current }

    /// The split rules, nil without `--split`.
    func rules() throws -> SplitRules? {
        guard !split.isEmpty else { return nil }
        var rules = SplitRules(timeZone: zone)
        for rule in split {
            let parts = rule.split(separator: ":", maxSplits: 1).map(String.init)
            switch (parts.first, parts.count) {
            case ("daily", 1):
                rules.daily = true
            case ("gap", 2), ("stop", 2):
                guard let d = DurationOption(argument: parts[1]), d.milliseconds > 0 else {
                    throw ValidationError("--split \(rule.visible): \(parts[0]) needs a duration such as 10m or 1h.")
                }
                if parts[0] == "gap" {
                    rules.gapMilliseconds = d.milliseconds
                } else {
                    rules.stopMilliseconds = d.milliseconds
                }
            default:
                throw ValidationError("--split \(rule.visible) is not a rule: use gap:10m, stop:5m or daily.")
            }
        }
        return rules
    }

    /// The name or template. A fixed name with splits gets the start time after it, so each session has its own.
    func naming() throws -> SessionNaming {
        let pattern = name ?? SessionNameTemplate.defaultPattern
        let template = SessionNameTemplate(pattern, timeZone: zone)
        if template.hasFields { return .template(template) }
        if try rules() != nil {
            return .template(SessionNameTemplate(pattern + " " + SessionNameTemplate.defaultPattern, timeZone: zone))
        }
        return .fixed(pattern)
    }
}

/// The geocoder that runs beside `record`.
struct RecordGeocodingOptions: ParsableArguments {
    @Option(help: "Reverse-geocode entries while recording with this provider (see `gpslog geocode`), or off.")
    var geocode: String = GeocoderSpec.defaultProvider
    @Option(help: "Rate for the geocoder (1/s, 4/min, ...).") var geocodeRate: String?
    @Option(help: "Contact for the geocoder's User-Agent (required by the public Nominatim).") var contact: String?

    func validate() throws {
        guard !OptionChecks.deferred else { return }  // run once the config settings are applied
        if geocodeRate.map({ GeocodeRate($0) == nil }) == true {
            throw ValidationError("--geocode-rate must look like 1/s or 4/min.")
        }
    }

    var plan: RecordingPlan.Geocoding? {
        geocode == "off"
            ? nil
            : .init(provider: GeocoderSpec(geocode), contact: contact, rate: geocodeRate.flatMap(GeocodeRate.init))
    }
}

/// `record --send`: live sending, with the options `upload` takes.
struct LiveSendingOptions: ParsableArguments {
    @Option(
        help:
            "Send the session live to this Overland-compatible URL, to a Traccar server (osmand://HOST[:5055][/PATH], osmands:// for HTTPS), or publish it to an MQTT broker (mqtt://HOST:1883, mqtts://) as OwnTracks does (the database is the queue; see `gpslog upload`)."
    )
    var send: String?
    @Option(
        help:
            "How often to send: 1s, 5s, 30s, 5m, 30m..., or off (only on `gpslog send-now` and at the end). Default: 30s; to MQTT, 1s."
    )
    var sendInterval: String?
    @Flag(
        help: ArgumentHelp(
            "Accept a server's send_interval off and tracking_mode off (Overland's `set`), which leave a recorder "
                + "that never calls the server again."))
    var allowRemoteOff = false
    @OptionGroup var sending: SendingOptions

    func validate() throws {
        guard !OptionChecks.deferred else { return }  // run once the config settings are applied
        if let sendInterval, sendInterval != "off",
            DurationOption(argument: sendInterval).map({ $0.milliseconds > 0 }) != true
        {
            throw ValidationError("--send-interval must be a duration such as 1s, 30s or 5m, or off.")
        }
        if let send, try sending.mqttDestination(url: send) == nil {
            do { _ = try sending.destination(url: send) } catch { throw ValidationError(error.localizedDescription) }
        }
    }

    /// The trip settings for sending and MQTT publishing, on a plan made with `plan`.
    func apply(to plan: inout RecordingPlan, trips: TripOptions) throws {
        plan.sending?.tripBatchSize = trips.tripBatchSize
        plan.sending?.tripLoggingMode = trips.tripLoggingMode.flatMap(LoggingMode.init(rawValue:))
        plan.mqtt = try mqttPlan
    }

    /// Publishing to an MQTT broker (`--send mqtt://`): every second unless --send-interval is given.
    var mqttPlan: RecordingPlan.MQTTSending? {
        get throws {
            guard let send, let destination = try sending.mqttDestination(url: send) else { return nil }
            // Given (on the command line or in the config file) or not: MQTT publishes every second by default.
            let interval = sendInterval ?? "1s"
            return RecordingPlan.MQTTSending(
                destination: destination, options: sending.publisherOptions,
                interval: DurationOption(argument: interval).map { .milliseconds($0.milliseconds) })
        }
    }

    var plan: RecordingPlan.Sending? {
        get throws {
            guard let send, !MQTTPublishOptions.isMQTT(send) else { return nil }
            // Live sending retries less than `upload` does: a failed send waits for the next interval, not for backoff.
            var options = sending.uploaderOptions
            options.maxAttempts = min(options.maxAttempts, 3)
            options.maxRetryDelay = min(options.maxRetryDelay, 5)
            options.stopAtSettings = true
            var plan = RecordingPlan.Sending(
                destination: try sending.destination(url: send), options: options,
                interval: DurationOption(argument: sendInterval ?? "30s").map { .milliseconds($0.milliseconds) })
            plan.allowRemoteOff = allowRemoteOff
            plan.explicitOptions = Self.givenOptions(CommandLine.arguments)
            return plan
        }
    }

    /// The long options on a command line (`--min-distance 50`, `--min-distance=50`), without their dashes: those
    /// win over the settings a server sent in an earlier run.
    static func givenOptions(_ arguments: [String]) -> Set<String> {
        Set(
            arguments.prefix { $0 != "--" }.compactMap { arg in
                guard arg.hasPrefix("--"), arg.count > 2 else { return nil }
                return String(arg.dropFirst(2).prefix { $0 != "=" })
            })
    }
}

/// Where `record` reads fixes, and how it watches that source.
struct RecordSourceOptions: ParsableArguments {
    @Option(help: "Where fixes come from.") var source: String = SourceSpec.defaultSource.text

    @Option(
        help:
            "Reconnect to gpsd, or reopen a serial device, when it sends nothing for this long (e.g. 10s, 1m), or off.")
    var watchdog: String = "10s"

    func validate() throws {
        guard !OptionChecks.deferred else { return }  // run once the config settings are applied
        if watchdog != "off", DurationOption(argument: watchdog).map({ $0.milliseconds > 0 }) != true {
            throw ValidationError("--watchdog must be a duration such as 5s, 10s or 1m, or off.")
        }
    }

    /// The watchdog for `RecordingPlan.watchdog`; nil when off.
    var plan: Duration? { DurationOption(argument: watchdog).map { .milliseconds($0.milliseconds) } }
}
