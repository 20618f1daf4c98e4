// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogGeocoding
import GPSLogModel
import GPSLogRecording
import GPSLogSampling
import GPSLogSources
import GPSLogUpload

extension GPSLog {
    /// Records a named session from a live or replayed source: option parsing, then one call to the runtime.
    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record sessions until Ctrl-C, SIGTERM or `gpslog stop`.",
            discussion: """
                Sources: gpsd://HOST:PORT (default gpsd://127.0.0.1:2947), nmea:PATH[?baud=N] (a serial device, a \
                file, or - for stdin), replay:PATH[?speed=N] (a recorded NMEA or GPX file at N times its own pace; \
                speed=0 as fast as possible; replay:sample is the recording bundled with gpslog). Entries are \
                committed every --commit-every (marks at once); `gpslog mark`, `status` and `stop` talk to the recorder from \
                another shell. With --split, a recorder that runs for months starts a new session after a gap, a \
                stop or at midnight. Times come from the fixes only, never from the system clock: a fix at 0,0, \
                a time going backwards or jumping ahead, and a speed above --max-speed are dropped unless the \
                fixes after them agree, and counted in `gpslog status` and `show`.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup(title: "Sessions") var sessions: SessionOptions
        @OptionGroup(title: "Source") var sourceOptions: RecordSourceOptions
        @OptionGroup(title: "Sampling") var sampling: SamplingOptions
        @OptionGroup(title: "Monitoring (OwnTracks)") var monitoring: MonitoringOptions
        @OptionGroup(title: "Pause and visits (Overland)") var stays: StayOptions
        @OptionGroup(title: "Trip settings (Overland; gpslog trip start)") var trips: TripOptions
        @Option(help: ArgumentHelp("Trip mode.", valueName: TripMode.allCases.map(\.rawValue).joined(separator: "|")))
        var mode: TripMode?
        @OptionGroup(title: "Addresses") var geocoding: RecordGeocodingOptions
        @OptionGroup(title: "Live sending") var sending: LiveSendingOptions
        @OptionGroup(title: "Durability") var commits: CommitOptions
        @Option(help: "OwnTracks' tag, kept with every entry (change it while recording with `gpslog tag`).")
        var tag: String?
        @Flag(help: "Log every commit.") var verbose = false

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            do { _ = try SourceSpec.parse(sourceOptions.source) } catch {
                throw ValidationError(error.localizedDescription)
            }
            try monitoring.validate(with: sampling)
        }

        func run() async throws {
            try global.openStore().close()  // an older database is upgraded here, with its progress bar
            var plan = RecordingPlan(
                databasePath: global.databasePath, naming: try sessions.naming(), mode: mode,
                policy: monitoring.applied(to: sampling.policy(mode: mode)), splits: try sessions.rules(),
                source: try SourceSpec.parse(sourceOptions.source),
                geocoding: geocoding.plan, sending: try sending.plan)
            plan.watchdog = sourceOptions.plan
            plan.commitEvery = commits.interval
            plan.stays = stays.rules
            plan.tripSampling = trips.sampling
            try sending.apply(to: &plan, trips: trips)
            plan.tag = tag
            let outcome = try await RecordingRuntime.run(
                plan, logger: LogSetup.makeStderrLogger(label: "gpslog.record", verbose: verbose))
            print(outcome.summary(monitoring: monitoring.monitoring != nil))
        }
    }
}

extension TripMode: ExpressibleByArgument {}
