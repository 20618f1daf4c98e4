// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// The subcommands of the groups (`share add`, `device add`, `region add`, `user add`...) take the config file's
/// global keys (`db`) as every other subcommand does; their own options are given on the command line only.
@Suite(.ownThreads) struct ConfigGroupsTests {
    @Test(.timeLimit(.minutes(5)))
    func aConfigFilesDatabaseReachesTheGroupsSubcommands() async throws {
        try await withTemporaryDirectory { dir in
            let configured = dir + "/configured.sqlite"
            let file = dir + "/xdg/gpslog/config.toml"
            try FileManager.default.createDirectory(atPath: dir + "/xdg/gpslog", withIntermediateDirectories: true)
            try "db = \"\(configured)\"\n".write(toFile: file, atomically: true, encoding: .utf8)
            // No --db: the file's, else the default one under this test's own data folder.
            let env = ["XDG_CONFIG_HOME": dir + "/xdg", "XDG_DATA_HOME": dir + "/data", "HOME": dir + "/home"]
            func gpslog(_ arguments: [String]) async throws -> CommandResult {
                try await runGPSLogAsync(arguments, environment: env, folder: dir)
            }
            let sample = try await runGPSLogAsync(["import", "--sample"], database: configured, folder: dir)
            try #require(sample.status == 0, "\(sample.stderr)")

            for arguments in [
                ["region", "add", "Home", "--lat", "52", "--lon", "5", "--radius", "100"],
                ["user", "add", "alice", "--no-password"], ["device", "add", "alice/phone"], ["share", "bf78"],
                ["share", "add", "bf78", "--expires", "2d"],
            ] {
                let r = try await gpslog(arguments)
                #expect(r.status == 0, "\(arguments): \(r.stderr)")
            }
            for (arguments, wanted) in [
                (["region", "list"], "Home"), (["device", "list"], "alice/phone"), (["share", "list"], "(bf78a8a5)"),
            ] {
                let r = try await runGPSLogAsync(arguments, database: configured, folder: dir)
                #expect(r.stdout.contains(wanted), "\(arguments) in the file's database: \(r.stdout) \(r.stderr)")
            }
            #expect(
                !FileManager.default.fileExists(atPath: dir + "/data/gpslog/gpslog.sqlite"),
                "nothing went to the default database")

            // A subcommand's own option in the file: refused, naming the file, the line and the key.
            try "db = \"\(configured)\"\n[share]\nexpires = \"7d\"\n".write(
                toFile: file, atomically: true, encoding: .utf8)
            let refused = try await gpslog(["share", "bf78"])
            #expect(
                refused.status != 0 && refused.stderr.contains("config.toml:3: unknown key 'expires' in [share]"),
                "\(refused.stderr)")
        }
    }
}
