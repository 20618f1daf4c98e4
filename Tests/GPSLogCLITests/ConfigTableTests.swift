// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// The option table end to end: `config show` prints the settings a command uses, every subcommand is a table, and
/// `~` in a file's paths and in `places:~/...` is the home folder. (`record` of the bundled recording counts 157
/// entries as it is; see `ConfigFileTests`.)
@Suite(.serialized)
struct ConfigTableTests {
    typealias Setup = ConfigFileTests.Setup

    /// `value` of `config show --json` as the arguments that give it on the command line.
    static func arguments(_ key: String, _ value: Any) -> [String] {
        switch value {
        case let flag as Bool where flag: ["--" + key]
        case is Bool: []
        case let items as [Any]: items.flatMap { arguments(key, $0) }
        default: ["--\(key)=\(value)"]
        }
    }

    /// For a file's settings, a file profile and two built-in ones: `record` with the config gets as many entries
    /// as `record` with no config file and, as flags, exactly what `config show --for record` printed.
    @Test func configShowPrintsWhatTheCommandUses() async throws {
        try await withTemporaryDirectory { dir in
            let s = Setup(dir: dir)
            try s.write(
                """
                [record]
                min-distance = 20
                max-accuracy = 1

                [profile.walk.record]
                interval = "5s"
                max-accuracy = 100
                """, to: s.userFile)
            var counts: Set<Int> = []
            for profile in [
                [], ["--profile", "walk"], ["--profile", "high-resolution"], ["--profile", "battery-saving"],
            ] {
                let shown = try await s.gpslog(["config", "show", "--for", "record", "--json"] + profile)
                try #require(shown.status == 0, "\(shown.stderr)")
                let json = try #require(
                    try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
                let settings = try #require(json["settings"] as? [[String: Any]])
                var flags: [String] = []
                for setting in settings where setting["origin"] as? String != "default" {
                    let key = try #require(setting["key"] as? String)
                    flags += Self.arguments(key, try #require(setting["value"]))
                }
                let configured = try #require(try await s.entries(profile))
                let explicit = try await s.entries(flags, environment: ["XDG_CONFIG_HOME": dir + "/none"])
                #expect(configured == explicit, "\(profile): config show said \(flags)")
                counts.insert(configured)
            }
            // Each of the four runs recorded differently: the settings did reach the command.
            #expect(counts.count == 4, "\(counts)")
        }
    }

    /// A profile overrides the keys it sets and no others; a built-in's "none" over a file's value is said.
    @Test func aProfileKeepsWhatItDoesNotSetAndSaysWhatItClears() async throws {
        try await withTemporaryDirectory { dir in
            let s = Setup(dir: dir)
            try s.write("[record]\nmin-distance = 50\n\n[profile.walk.record]\nmax-accuracy = 100\n", to: s.userFile)
            #expect(try await s.entries(["--profile", "walk"]) == 19, "min-distance 50 stays under the profile")
            let note =
                "note: profile battery-saving leaves min-distance unset: the value of \(s.userFile):2 is not used."
            let battery = try await s.gpslog([
                "record", "--source", "replay:sample?speed=0", "--profile", "battery-saving",
            ])
            #expect(battery.status == 0 && battery.stderr.contains(note), "\(battery.stderr)")
            let shown = try await s.gpslog(["config", "show", "--for", "record", "--profile", "battery-saving"])
            #expect(shown.stderr.contains(note) && !shown.stdout.contains("min-distance"), "\(shown.stdout)")
            let walk = try await s.gpslog(["config", "show", "--for", "record", "--profile", "walk"])
            #expect(walk.stdout.contains("min-distance = 50  # \(s.userFile):2") && !walk.stderr.contains("note:"))
            // The command line decides: no note.
            let given = try await s.gpslog(
                ["record", "--source", "replay:sample?speed=0", "--profile", "high-resolution", "--min-distance", "5"])
            #expect(given.status == 0 && !given.stderr.contains("note:"), "\(given.stderr)")
        }
    }

    /// Every subcommand the command line has (but `config` and `help`) may have a table in the file.
    @Test func everySubcommandIsATable() async throws {
        try await withTemporaryDirectory { dir in
            let s = Setup(dir: dir)
            let dump = try await s.gpslog(["--experimental-dump-help"])
            let tool = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
            let command = try #require(tool["command"] as? [String: Any])
            let names = try #require(command["subcommands"] as? [[String: Any]]).compactMap {
                $0["commandName"] as? String
            }.filter { $0 != "config" && $0 != "help" }
            #expect(names.contains("send-now") && names.count > 20, "\(names)")
            try s.write(names.map { "[\($0)]\n" }.joined(), to: s.userFile)
            let shown = try await s.gpslog(["config", "show"])
            #expect(shown.status == 0, "\(shown.stderr)")
            for name in names {
                let one = try await s.gpslog(["config", "show", "--for", name])
                #expect(one.status == 0, "\(name): \(one.stderr)")
            }
        }
    }

    /// `~` and `~/` are `$HOME` in a file's path options and in the `places:~/...` provider, from the command line
    /// or from the file.
    @Test func tildeIsTheHomeFolder() async throws {
        try await withTemporaryDirectory { dir in
            let s = Setup(dir: dir)
            let env = ["XDG_CONFIG_HOME": dir + "/xdg", "GPSLOG_SYSTEM_CONFIG": s.systemFile, "HOME": dir]
            func gpslog(_ arguments: [String]) async throws -> CommandResult {
                try await runGPSLogAsync(arguments, database: nil, environment: env, folder: dir)
            }
            try s.write("db = \"~/mine.sqlite\"\n", to: s.userFile)
            let imported = try await gpslog(["import", "--sample", "--name", "Sail"])
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(FileManager.default.fileExists(atPath: dir + "/mine.sqlite"))
            let shown = try await gpslog(["config", "show", "--for", "sessions"])
            #expect(shown.stdout.contains("db = \"\(dir)/mine.sqlite\"  # \(s.userFile):1"), "\(shown.stdout)")

            let flag = try await gpslog(["geocode", "--all", "--provider", "places:~/no.bin"])
            #expect(flag.status != 0 && flag.stderr.contains("\(dir)/no.bin: cannot be read"), "\(flag.stderr)")
            try s.write("db = \"~/mine.sqlite\"\n[geocode]\nprovider = \"places:~/no.bin\"\n", to: s.userFile)
            let file = try await gpslog(["geocode", "--all"])
            #expect(file.status != 0 && file.stderr.contains("\(dir)/no.bin: cannot be read"), "\(file.stderr)")
        }
    }
}
