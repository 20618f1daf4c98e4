// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogRecording

/// `record --commit-every`: how long fixes wait in memory before their commit, which is what a kill -9 can lose.
struct CommitOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Commit entries this often (1s or more): a kill -9 loses at most this much; marks commit at once.",
            discussion: "Longer intervals write less to the disk (an SD card): see the README's Crash safety."))
    var commitEvery = DurationOption(argument: "\(Int(SessionRecorder.defaultCommitEvery.components.seconds))s")!

    func validate() throws {
        guard !OptionChecks.deferred else { return }  // run once the config settings are applied
        if commitEvery.milliseconds < 1000 {
            throw ValidationError("--commit-every must be 1s or more (the recorder commits on a once-a-second tick).")
        }
    }

    var interval: Duration { .milliseconds(commitEvery.milliseconds) }
}
