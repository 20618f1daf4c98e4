// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogSampling
import GPSLogUpload

/// Overland's Trip Settings for `record`: the sampling and live sending a trip (`gpslog trip start`) uses; unset, the
/// main value.
struct TripOptions: ParsableArguments {
    @Option(help: "While a trip runs: one entry per this interval (e.g. 1s).") var tripInterval: DurationOption?
    @Option(help: "While a trip runs: drop fixes closer than this many metres.") var tripMinDistance: NumberOption?
    @Option(help: "While a trip runs: drop fixes sooner than this after the last entry.") var tripMinTime:
        DurationOption?
    @Option(help: "While a trip runs: drop fixes worse than this many metres.") var tripMaxAccuracy: NumberOption?
    @Option(help: "While a trip runs: points per live-sending batch.") var tripBatchSize: Int?
    @Option(help: ArgumentHelp("While a trip runs: the live-sending logging mode.", valueName: "all|latest|owntracks"))
    var tripLoggingMode: String?

    func validate() throws {
        guard !OptionChecks.deferred else { return }  // run once the config settings are applied
        if let d = tripMinDistance?.value, d < 0 { throw ValidationError("--trip-min-distance must not be negative.") }
        if let a = tripMaxAccuracy?.value, a <= 0 { throw ValidationError("--trip-max-accuracy must be positive.") }
        if let n = tripBatchSize, !(1...10_000).contains(n) {
            throw ValidationError("--trip-batch-size must be from 1 to 10000.")
        }
        if let mode = tripLoggingMode, LoggingMode(rawValue: mode) == nil {
            throw ValidationError("--trip-logging-mode must be all, latest or owntracks.")
        }
    }

    var sampling: TripSampling {
        TripSampling(
            intervalMilliseconds: tripInterval?.milliseconds, minDistance: tripMinDistance?.value,
            minTimeMilliseconds: tripMinTime?.milliseconds, maxAccuracy: tripMaxAccuracy?.value)
    }
}
