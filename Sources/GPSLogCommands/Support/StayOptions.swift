// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogModel
import GPSLogSampling

/// Overland's automatic pause and visits, for `record`.
struct StayOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Stop writing entries after standing still this long (e.g. 10m), or off (Overland's automatic pause).",
            discussion: "Standing still: within 50 m (or --same-place, if larger) of where the stop began."))
    var pauseWhenStopped: String = "off"
    @Option(help: "Resume once this many metres from where the pause began (Overland's geofence).")
    var resumeRadius = NumberOption(StayRules.defaultResumeRadius)
    @Flag(help: "Record visits: an arrival after 3 minutes standing still, and the departure (`gpslog visits`).")
    var visits = false

    func validate() throws {
        guard !OptionChecks.deferred else { return }  // run once the config settings are applied
        if pauseWhenStopped != "off", DurationOption(argument: pauseWhenStopped).map({ $0.milliseconds > 0 }) != true {
            throw ValidationError("--pause-when-stopped must be a duration such as 10m, or off.")
        }
        if resumeRadius.value <= 0 { throw ValidationError("--resume-radius must be a positive number of metres.") }
    }

    /// The rules; nil when neither the pause nor visits are on.
    var rules: StayRules? {
        let rules = StayRules(
            pauseAfterMilliseconds: DurationOption(argument: pauseWhenStopped)?.milliseconds,
            resumeRadius: resumeRadius.value, visits: visits)
        return rules.watches ? rules : nil
    }
}
