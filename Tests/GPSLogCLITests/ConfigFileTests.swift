// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// The config files, end to end with the built binary: a user file in a temporary `XDG_CONFIG_HOME`, a system file
/// through the `GPSLOG_SYSTEM_CONFIG` hook, and `record` of the bundled recording, whose entry count shows which
/// settings it got (157 entries as it is, 19 with --min-distance 50, 40 with --interval 5s, 11 with
/// --max-accuracy 1: fixes that worse are dropped and only heading changes are left).
@Suite(.ownThreads, .serialized)
struct ConfigFileTests {
    /// A folder with a user config folder and a database.
    struct Setup {
        var dir: String
        var userFile: String { dir + "/xdg/gpslog/config.toml" }
        var systemFile: String { dir + "/system.toml" }

        func write(_ text: String, to path: String) throws {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }

        func gpslog(_ arguments: [String], environment: [String: String] = [:]) async throws -> CommandResult {
            let env = ["XDG_CONFIG_HOME": dir + "/xdg", "GPSLOG_SYSTEM_CONFIG": systemFile].merging(environment) {
                $1
            }
            return try await runGPSLogAsync(arguments, database: dir + "/db.sqlite", environment: env, folder: dir)
        }

        /// The entries `record` of the bundled recording wrote with `arguments` added.
        func entries(_ arguments: [String] = [], environment: [String: String] = [:]) async throws -> Int? {
            let r = try await gpslog(
                ["record", "--source", "replay:sample?speed=0", "--name", "R"] + arguments, environment: environment)
            #expect(r.status == 0, "\(arguments): \(r.stderr)")
            guard let range = r.stdout.range(of: #"\d+ entr(y|ies)\b"#, options: .regularExpression) else { return nil }
            return Int(r.stdout[range].prefix { $0.isNumber })
        }
    }

    func withSetup(_ body: (Setup) async throws -> Void) async throws {
        try await withTemporaryDirectory { dir in try await body(Setup(dir: dir)) }
    }

    @Test func aFileIsAppliedAFlagBeatsItAndTheUserBeatsTheSystem() async throws {
        try await withSetup { s in
            #expect(try await s.entries() == 157)
            try s.write("# mine\njson = true\n\n[record]\nmin-distance = 50\n", to: s.userFile)
            #expect(try await s.entries() == 19)
            #expect(try await s.entries(["--min-distance", "0"]) == 157)
            #expect(try await s.entries(["--min-distance=0"]) == 157)
            // A top-level key goes to every subcommand that has the option: sessions prints JSON.
            let listed = try await s.gpslog(["sessions"])
            #expect(listed.status == 0 && listed.stdout.hasPrefix("["), "\(listed.stdout)")

            try s.write("[record]\nmin-distance = 500\ninterval = \"5s\"\n", to: s.systemFile)
            #expect(
                try await s.entries() == 19, "the user's min-distance 50 wins; the system's interval 5s is under it")
            try FileManager.default.removeItem(atPath: s.userFile)
            #expect(try await s.entries(["--min-distance", "0"]) == 40)
            // --config replaces the user's file, and must exist.
            try s.write("[record]\nmin-distance = 50\n", to: s.dir + "/other.toml")
            #expect(try await s.entries(["--config", s.dir + "/other.toml"]) == 19)
            #expect(try await s.entries([], environment: ["GPSLOG_CONFIG": s.dir + "/other.toml"]) == 19)
            let missing = try await s.gpslog(["sessions", "--config", s.dir + "/none.toml"])
            #expect(
                missing.status == 1
                    && missing.stderr.contains("--config names \(s.dir)/none.toml, which does not exist"))
        }
    }

    /// The option list comes from swift-argument-parser's description of the tool: flags and repeated options are
    /// known as such, and reach the command.
    @Test func flagsAndRepeatedOptionsFromTheFile() async throws {
        try await withSetup { s in
            try s.write(
                "json = true\n[record]\nsplit = [\"daily\", \"gap:10m\"]\nname = \"Split\"\n[show]\njson = false\n",
                to: s.userFile)
            let r = try await s.gpslog(["record", "--source", "replay:sample?speed=0"])
            #expect(r.status == 0, "\(r.stderr)")
            // A fixed name with --split gets each session's start time.
            #expect(r.stdout.contains("Recorded 'Split 20"), "\(r.stdout)")
            let shown = try await s.gpslog(["config", "show", "--for", "record", "--json"])
            #expect(shown.stdout.contains(#""value" : ["#), "\(shown.stdout)")
            // A flag: true at the top, false for show (which then prints text, not JSON).
            #expect(try await s.gpslog(["sessions"]).stdout.hasPrefix("["))
            let text = try await s.gpslog(["show", String(r.stdout.split(separator: "'")[1])])
            #expect(text.status == 0 && text.stdout.contains("Session:"), "\(text.stdout) \(text.stderr)")
        }
    }

    @Test func errorsNameTheFileTheLineAndTheKey() async throws {
        try await withSetup { s in
            try s.write("# settings\n[record]\nmin_distanse = 50\n", to: s.userFile)
            let unknown = try await s.gpslog(["sessions"])
            #expect(unknown.status != 0)
            #expect(
                unknown.stderr.contains(
                    "config.toml:3: unknown key 'min_distanse' in [record]: did you mean 'min-distance'?"),
                "\(unknown.stderr)")
            try s.write("# settings\n[record]\ninterval = \"5s\"\nmin-distance = \"far\"\n", to: s.userFile)
            let bad = try await s.gpslog(["record", "--source", "replay:sample?speed=0"])
            #expect(bad.status != 0)
            #expect(bad.stderr.contains("\(s.userFile):4: min-distance: The value 'far' is invalid"), "\(bad.stderr)")
            try s.write("[record]\nmax-accuracy = -1\n", to: s.userFile)
            let refused = try await s.gpslog(["record", "--source", "replay:sample?speed=0"])
            #expect(refused.stderr.contains("config.toml:2: max-accuracy: --max-accuracy must be positive."))
            // Given on the command line, the file's bad value is not used at all.
            #expect(try await s.entries(["--max-accuracy", "100"]) == 157)
            try s.write("[record]\nsplit = \"gap:10m\"\n[upload]\nurl = [1]\n", to: s.userFile)
            #expect(
                try await s.gpslog(["sessions"]).stderr.contains("config.toml:4: url: takes one value, not an array"))
            try s.write("[record\n", to: s.userFile)
            #expect(try await s.gpslog(["sessions"]).stderr.contains("config.toml:1: "))
            // Help still works with a broken file.
            #expect(try await s.gpslog(["record", "--help"]).status == 0)
        }
    }

    @Test func showMasksTokensEverywhere() async throws {
        try await withSetup { s in
            let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
            let token = String((0..<40).map { _ in alphabet.randomElement()! })
            let other = String((0..<40).map { _ in alphabet.randomElement()! })
            try s.write(
                "[upload]\ntoken = \"\(token)\"\nurl = \"http://127.0.0.1:9/?token=\(token)\"\n", to: s.userFile)
            var outputs: [CommandResult] = []
            for arguments in [
                ["config", "show"], ["config", "show", "--for", "upload"],
                ["config", "show", "--json", "--for", "upload"],
                ["config", "show", "--for", "upload", "--", "--token", other], ["config", "path"],
                ["upload", "none", "--max-attempts", "1"],
            ] {
                outputs.append(try await s.gpslog(arguments))
                outputs.append(try await s.gpslog(arguments, environment: ["GPSLOG_TOKEN": other]))
            }
            for r in outputs {
                #expect(!r.stdout.contains(token) && !r.stderr.contains(token))
                #expect(!r.stdout.contains(other) && !r.stderr.contains(other))
            }
            #expect(outputs[2].stdout.contains("token = \"***\"  # \(s.userFile):2"), "\(outputs[2].stdout)")
            #expect(outputs[3].stdout.contains("token = \"***\"  # env GPSLOG_TOKEN"), "\(outputs[3].stdout)")
            #expect(outputs[2].stdout.contains("url = \"http://127.0.0.1:9/?token=***\""))
            #expect(outputs[6].stdout.contains("token = \"***\"  # flag"))
            #expect(outputs[4].stdout.contains(#""value" : "***""#))
        }
    }

    @Test func profilesFromTheFileAndBuiltIn() async throws {
        try await withSetup { s in
            try s.write(
                """
                [record]
                max-accuracy = 1

                [profile.walk.record]
                interval = "5s"
                max-accuracy = 100
                """, to: s.userFile)
            #expect(try await s.entries() == 11)
            #expect(try await s.entries(["--profile", "walk"]) == 40)
            #expect(try await s.entries([], environment: ["GPSLOG_PROFILE": "walk"]) == 40)
            #expect(try await s.entries(["--profile", "walk", "--interval", "0s"]) == 157)
            // high-resolution: every fix, and no accuracy filter, whatever the file says.
            #expect(try await s.entries(["--profile", "high-resolution"]) == 157)
            // battery-saving: significant-change monitoring, so the 2.4-minute sail is its first fix alone (500 m
            // and 5 minutes make the next entry).
            #expect(try await s.entries(["--profile", "battery-saving"]) == 1)
            let battery = try await s.gpslog(["config", "show", "--for", "record", "--profile", "battery-saving"])
            for line in [
                "monitoring = \"significant\"  # profile battery-saving",
                "pause-when-stopped = \"10m\"  # profile battery-saving",
                "resume-radius = 500  # profile battery-saving",
            ] {
                #expect(battery.stdout.contains(line), "\(battery.stdout)")
            }
            let shown = try await s.gpslog(["config", "show", "--for", "record", "--profile", "high-resolution"])
            #expect(shown.stdout.contains("interval = \"0s\"  # profile high-resolution"), "\(shown.stdout)")
            #expect(!shown.stdout.contains("max-accuracy"))
            let walk = try await s.gpslog(
                ["config", "show", "--for", "record"], environment: ["GPSLOG_PROFILE": "walk"])
            #expect(walk.stdout.contains("interval = \"5s\"  # \(s.userFile):5 (profile walk)"), "\(walk.stdout)")
            #expect(walk.stdout.contains("# profile: walk, chosen by $GPSLOG_PROFILE"))
            let unknown = try await s.gpslog(["sessions", "--profile", "nope"])
            #expect(unknown.status != 0 && unknown.stderr.contains("--profile names the profile 'nope'"))
        }
    }
}
