// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// The option table end to end: `config show` prints the settings a command uses, every subcommand is a table, and
/// `~` in a file's paths and in `places:~/...` is the home folder. (`record` of the bundled recording counts 157
/// entries as it is; see `ConfigFileTests`.)
@Suite(.ownThreads, .serialized)
struct ConfigTableTests {
    typealias Setup = ConfigFileTests.Setup

    /// `config show --json`'s part this test reads.
    struct Shown: Decodable {
        struct Setting: Decodable {
            var key: String
            var value: Value
            var origin: String
        }
        var settings: [Setting]
    }

    /// A setting's value, as JSON has it.
    enum Value: Decodable {
        case flag(Bool)
        case word(String)
        case list([Value])

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let b = try? c.decode(Bool.self) {
                self = .flag(b)
            } else if let i = try? c.decode(Int.self) {
                self = .word(String(i))
            } else if let d = try? c.decode(Double.self) {
                self = .word(String(d))
            } else if let items = try? c.decode([Value].self) {
                self = .list(items)
            } else {
                self = .word(try c.decode(String.self))
            }
        }

        /// The arguments that give this value to `--key`.
        func arguments(_ key: String) -> [String] {
            switch self {
            case .flag(let on): on ? ["--" + key] : []
            case .word(let word): ["--\(key)=\(word)"]
            case .list(let items): items.flatMap { $0.arguments(key) }
            }
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
                let settings = try JSONDecoder().decode(Shown.self, from: Data(shown.stdout.utf8)).settings
                let flags = settings.filter { $0.origin != "default" }.flatMap { $0.value.arguments($0.key) }
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
            // A path the command itself does not expand: export's file.
            try s.write("db = \"~/mine.sqlite\"\n[export]\noutput = \"~/sail.gpx\"\n", to: s.userFile)
            let exported = try await gpslog(["export", "Sail"])
            #expect(exported.status == 0, "\(exported.stderr)")
            #expect(FileManager.default.fileExists(atPath: dir + "/sail.gpx"), "\(exported.stdout)")

            let flag = try await gpslog(["geocode", "--all", "--provider", "places:~/no.bin"])
            #expect(flag.status != 0 && flag.stderr.contains("\(dir)/no.bin: cannot be read"), "\(flag.stderr)")
            try s.write("db = \"~/mine.sqlite\"\n[geocode]\nprovider = \"places:~/no.bin\"\n", to: s.userFile)
            let file = try await gpslog(["geocode", "--all"])
            #expect(file.status != 0 && file.stderr.contains("\(dir)/no.bin: cannot be read"), "\(file.stderr)")
        }
    }
}
