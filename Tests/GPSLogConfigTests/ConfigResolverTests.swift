// SPDX-License-Identifier: MIT
import GPSLogConfig
import Testing

@Suite struct ConfigResolverTests {
    func resolver(
        system: String? = nil, user: String? = nil, environment: [String: String] = [:], profile: String? = nil
    ) throws -> ConfigResolver {
        ConfigResolver(
            catalog: catalog,
            sources: ConfigSources(
                system: try system.map { try parse($0, path: "/etc/gpslog/config.toml") },
                user: try user.map { try parse($0, path: "/home/u/config.toml") }, environment: environment,
                profileFlag: profile))
    }

    func arguments(_ r: ConfigResolver, _ command: String = "record", _ line: [String] = []) throws -> [String] {
        try r.injection(for: command, commandLine: line).arguments
    }

    @Test func userBeatsSystemAndSectionsBeatTopLevel() throws {
        let r = try resolver(
            system: "[record]\nmin-distance = 500\ninterval = \"9s\"\n",
            user: "json = true\n[record]\nmin-distance = 50\n[sessions]\njson = false\n")
        #expect(try arguments(r) == ["--interval=9s", "--min-distance=50"])
        #expect(try arguments(r, "sessions").isEmpty)
        let settings = try r.settings(for: "record")
        #expect(settings["min-distance"]?.origin.description == "/home/u/config.toml:3")
        #expect(settings["interval"]?.origin.description == "/etc/gpslog/config.toml:3")
    }

    @Test func theCommandLineWinsAndArraysAndFlagsBecomeArguments() throws {
        let r = try resolver(user: "[record]\nsplit = [\"gap:10m\", \"daily\"]\nverbose = true\nmin-distance = 50.5\n")
        #expect(try arguments(r) == ["--min-distance=50.5", "--split=gap:10m", "--split=daily", "--verbose"])
        #expect(try arguments(r, "record", ["--split", "stop:5m", "--min-distance=1"]) == ["--verbose"])
        #expect(try arguments(r, "record", ["--", "--verbose"]).contains("--verbose"))
        let s = try resolver(user: "colour = false\n")
        #expect(try arguments(s, "sessions") == ["--no-colour"])
        #expect(try arguments(s, "sessions", ["--colour"]).isEmpty)
    }

    @Test func theEnvironmentBeatsFilesForItsOwnKeys() throws {
        let r = try resolver(
            user: "db = \"/file.sqlite\"\n[record]\ntoken-file = \"/t\"\n",
            environment: ["GPSLOG_DB": "/env.sqlite", "GPSLOG_TOKEN": "x"])
        #expect(try arguments(r).isEmpty)
        #expect(try r.settings(for: "record")["db"]?.origin == .environment("GPSLOG_DB"))
        #expect(try r.settings(for: "record")["token-file"] == nil)
        // A token on the command line stands for the file's token-file too.
        let t = try resolver(user: "[record]\ntoken-file = \"/t\"\n")
        #expect(try arguments(t, "record", ["--token", "abc"]).isEmpty)
    }

    @Test func profilesBuiltInAndFromFiles() throws {
        let user = "[record]\nmax-accuracy = 5\nmin-distance = 50\n[profile.slow.record]\ninterval = \"30s\"\n"
        let high = try resolver(user: user, profile: "high-resolution")
        // high-resolution takes the file's filters away; options record lacks here (pause, monitoring) are skipped.
        #expect(try arguments(high) == ["--interval=0s"])
        #expect(try high.settings(for: "record")["interval"]?.origin == .builtInProfile("high-resolution"))
        let battery = try resolver(user: user, environment: ["GPSLOG_PROFILE": "battery-saving"])
        // battery-saving clears GPS Log's distance filter, which its monitoring mode does not take.
        #expect(try arguments(battery) == ["--max-accuracy=100"])
        #expect(try battery.chosenProfile()?.chosenBy == "$GPSLOG_PROFILE")
        let slow = try resolver(user: user, profile: "slow")
        #expect(
            try slow.settings(for: "record")["interval"]?.origin.description == "/home/u/config.toml:5 (profile slow)")
        // A profile chosen in a file expands below that file's own keys.
        let inFile = try resolver(user: "profile = \"battery-saving\"\n[record]\nmax-accuracy = 7\n")
        #expect(try arguments(inFile) == ["--max-accuracy=7"])
        #expect(throws: ConfigError.self) { try resolver(user: user, profile: "nope").settings(for: "record") }
        // A file's profile of a built-in's name replaces it.
        let replaced = try resolver(
            user: "[profile.high-resolution.record]\ninterval = \"2s\"\n", profile: "high-resolution")
        #expect(try arguments(replaced) == ["--interval=2s"])
        #expect(replaced.replacedBuiltIns == ["high-resolution"])
    }

    @Test func showListsFlagsLayersAndDefaults() throws {
        let r = try resolver(user: "[record]\nmin-distance = 50\ntoken = \"secret\"\n")
        let shown = try r.effective(for: "record", commandLine: ["--interval", "3s"])
        #expect(shown.first { $0.key == "interval" }?.origin == .flag)
        #expect(shown.first { $0.key == "min-distance" }?.origin.description == "/home/u/config.toml:2")
        #expect(shown.first { $0.key == "verbose" }?.origin == .default)
        #expect(try r.effective(for: "record", commandLine: ["--token-file", "/t"]).first { $0.key == "token" } == nil)
    }
}
