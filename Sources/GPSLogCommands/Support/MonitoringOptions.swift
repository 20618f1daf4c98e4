// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogModel
import GPSLogSampling

/// OwnTracks' monitoring modes for `record`, under OwnTracks' names.
struct MonitoringOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "OwnTracks' monitoring mode instead of GPS Log's interval sampling.",
            discussion: """
                move: an entry once the position moved --locator-displacement or --locator-interval passed; \
                significant: at least 500 m moved and at most one entry per 5 minutes, and a ping entry every \
                --ping-interval while nothing moves; manual and quiet: only marks. Without it, --interval, \
                --min-distance and --min-time sample as GPS Log does.
                """,
            valueName: "quiet|manual|significant|move"))
    var monitoring: String?
    @Option(help: "Move mode: metres moved that make an entry (OwnTracks' locatorDisplacement).")
    var locatorDisplacement: NumberOption = 100
    @Option(help: "Move mode: time that makes an entry (OwnTracks' locatorInterval; a bare number is seconds).")
    var locatorInterval = DurationOption(argument: "300s")!
    @Option(
        help: ArgumentHelp(
            "Move mode: an entry when either the displacement or the interval is reached (iOS), or only when both are (Android).",
            valueName: "either|both"))
    var locatorRule: String = LocatorRule.either.rawValue
    @Option(help: "Significant mode: a ping entry after this long without one (e.g. 15m), or off.")
    var pingInterval: String = "15m"

    func validate() throws {
        guard !OptionChecks.deferred else { return }  // run once the config settings are applied
        if let monitoring, MonitoringMode(name: monitoring) == nil {
            throw ValidationError(
                "--monitoring must be quiet, manual, significant or move (or OwnTracks' -1, 0, 1, 2).")
        }
        if locatorDisplacement.value <= 0 { throw ValidationError("--locator-displacement must be positive.") }
        if locatorInterval.milliseconds <= 0 { throw ValidationError("--locator-interval must be positive.") }
        if LocatorRule(rawValue: locatorRule) == nil { throw ValidationError("--locator-rule must be either or both.") }
        if pingInterval != "off", DurationOption(argument: pingInterval).map({ $0.milliseconds > 0 }) != true {
            throw ValidationError("--ping-interval must be a duration such as 15m or 1h, or off.")
        }
    }

    /// Refuses GPS Log's distance and time filters beside a monitoring mode, whose own rules replace them.
    func validate(with sampling: SamplingOptions) throws {
        guard let monitoring, let mode = MonitoringMode(name: monitoring) else { return }
        if sampling.minDistance != nil || sampling.minTime != nil {
            throw ValidationError(
                "--min-distance and --min-time are GPS Log's sampling; --monitoring \(mode.name) has its own rules "
                    + "(--locator-displacement, --locator-interval).")
        }
    }

    /// `policy` with the monitoring mode and its settings.
    func applied(to policy: SamplingPolicy) -> SamplingPolicy {
        var policy = policy
        policy.monitoring = monitoring.flatMap(MonitoringMode.init(name:))
        policy.locatorDisplacement = locatorDisplacement.value
        policy.locatorIntervalMilliseconds = locatorInterval.milliseconds
        policy.locatorRule = LocatorRule(rawValue: locatorRule) ?? .either
        policy.pingIntervalMilliseconds = DurationOption(argument: pingInterval)?.milliseconds
        return policy
    }
}
