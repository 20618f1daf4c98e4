// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogGeocoding
import GPSLogRecording
import GPSLogSampling
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

    func validate() throws {
        if headingFilter.value < 0 || headingFilter.value >= 180 {
            throw ValidationError("--heading-filter must be from 0 to 180 degrees.")
        }
        if let d = minDistance, d < 0 { throw ValidationError("--min-distance must not be negative.") }
        if let a = maxAccuracy, a <= 0 { throw ValidationError("--max-accuracy must be positive.") }
    }

    var policy: SamplingPolicy {
        SamplingPolicy(
            intervalMilliseconds: interval.milliseconds, minDistance: minDistance,
            minTimeMilliseconds: minTime?.milliseconds,
            maxAccuracy: maxAccuracy, samePlaceRadius: samePlace.value, headingFilter: headingFilter.value)
    }
}

/// The geocoder that runs beside `record`.
struct RecordGeocodingOptions: ParsableArguments {
    @Option(help: "Reverse-geocode entries while recording with this provider (see `gpslog geocode`), or off.")
    var geocode: String = GeocoderSpec.defaultProvider
    @Option(help: "Rate for the geocoder (1/s, 4/min, ...).") var geocodeRate: String?
    @Option(help: "Contact for the geocoder's User-Agent (required by the public Nominatim).") var contact: String?

    func validate() throws {
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
        help: "Send the session live to this Overland-compatible URL (the database is the queue; see `gpslog upload`).")
    var send: String?
    @Option(help: "How often to send: 1s, 5s, 30s, 5m, 30m..., or off (only on `gpslog send-now` and at the end).")
    var sendInterval: String = "30s"
    @OptionGroup var sending: SendingOptions

    func validate() throws {
        if sendInterval != "off", DurationOption(argument: sendInterval).map({ $0.milliseconds > 0 }) != true {
            throw ValidationError("--send-interval must be a duration such as 1s, 30s or 5m, or off.")
        }
        if let send {
            do { _ = try sending.destination(url: send) } catch { throw ValidationError(error.localizedDescription) }
        }
    }

    var plan: RecordingPlan.Sending? {
        get throws {
            guard let send else { return nil }
            // Live sending retries less than `upload` does: a failed send waits for the next interval, not for backoff.
            var options = sending.uploaderOptions
            options.maxAttempts = min(options.maxAttempts, 3)
            options.maxRetryDelay = min(options.maxRetryDelay, 5)
            return .init(
                destination: try sending.destination(url: send), options: options,
                interval: DurationOption(argument: sendInterval).map { .milliseconds($0.milliseconds) })
        }
    }
}
