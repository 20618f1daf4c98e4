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

    /// The settings `command` gets besides `line`, written as the flags that would give them (to compare briefly).
    func arguments(_ r: ConfigResolver, _ command: String = "record", _ line: [String] = []) throws -> [String] {
        try written(r.applied(for: command, commandLine: line), r.catalog.commands[command, default: [:]])
    }

    func written(_ settings: [EffectiveSetting], _ options: [String: OptionSpec]) -> [String] {
        settings.flatMap { setting -> [String] in
            switch setting.value {
            case .boolean(true): ["--" + setting.key]
            case .boolean(false): options[setting.key]?.inversion.map { ["--" + $0] } ?? []
            case .array(let items): items.compactMap(\.argument).map { "--\(setting.key)=\($0)" }
            default: setting.value.argument.map { ["--\(setting.key)=\($0)"] } ?? []
            }
        }
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

    /// A profile overrides the keys it sets and no others, wherever it is chosen from.
    @Test func aProfileKeepsTheFileKeysItDoesNotSet() throws {
        let profiles = "[profile.walk.record]\ninterval = \"5s\"\n"
        let file = "min-distance = 50\n[record]\nmax-accuracy = 7\n" + profiles
        for r in [
            try resolver(user: file, profile: "walk"),
            try resolver(user: file, environment: ["GPSLOG_PROFILE": "walk"]),
            try resolver(user: "default-profile = \"walk\"\n" + file),
            try resolver(
                system: "default-profile = \"walk\"\n" + profiles,
                user: "min-distance = 50\n[record]\nmax-accuracy = 7\n"),
        ] {
            #expect(try arguments(r) == ["--interval=5s", "--max-accuracy=7", "--min-distance=50"])
            let shown = try r.effective(for: "record")
            #expect(shown.first { $0.key == "min-distance" }?.value == .integer(50))
            #expect(shown.first { $0.key == "interval" }?.origin.description.hasSuffix("(profile walk)") == true)
        }
    }

    /// A built-in's "none" over a file's value is reported, with the file's line and not the value.
    @Test func whatABuiltInProfileClearsIsReported() throws {
        let user = "[record]\nmax-accuracy = 5\nmin-distance = 50\ninterval = \"3s\"\n"
        let high = try resolver(user: user, profile: "high-resolution")
        #expect(
            try high.cleared(for: "record").map(\.notice) == [
                "profile high-resolution leaves max-accuracy unset: the value of /home/u/config.toml:2 is not used",
                "profile high-resolution leaves min-distance unset: the value of /home/u/config.toml:3 is not used",
            ])
        // Chosen in the file, the profile is under the file's own keys: nothing is cleared.
        #expect(try resolver(user: "profile = \"high-resolution\"\n" + user).cleared(for: "record").isEmpty)
        #expect(try resolver(user: user, profile: "high-resolution").cleared(for: "sessions").isEmpty)
    }

    /// `~` and `~/` in a path option's value are `$HOME`; other options' values and `~user` stay as written.
    @Test func pathsFromAFileExpandTheHomeFolder() throws {
        let paths = OptionCatalog(commands: [
            "record": [
                "token-file": OptionSpec(name: "token-file", kind: .option, valueType: .path),
                "db": OptionSpec(name: "db", kind: .option, valueType: .path),
                "name": OptionSpec(name: "name", kind: .option),
                "split": OptionSpec(name: "split", kind: .option, isRepeating: true, valueType: .path),
            ]
        ])
        let text =
            "db = \"~\"\n[record]\ntoken-file = \"~/gpslog/token\"\nname = \"~/x\"\nsplit = [\"~/a\", \"~bob/b\"]\n"
        let r = ConfigResolver(
            catalog: paths,
            sources: ConfigSources(
                user: try ConfigDocument.parse(text, path: "/c/config.toml", catalog: paths),
                environment: ["HOME": "/home/u"]))
        #expect(
            try written(r.applied(for: "record", commandLine: []), paths.commands["record"]!) == [
                "--db=/home/u", "--name=~/x", "--split=/home/u/a", "--split=~bob/b",
                "--token-file=/home/u/gpslog/token",
            ])
        #expect(
            try r.effective(for: "record").first { $0.key == "token-file" }?.value == .string("/home/u/gpslog/token"))
        #expect(HomePath.expand("~", home: "/home/u/") == "/home/u")
        #expect(HomePath.expand("a/~/b", home: "/home/u") == "a/~/b")
    }

    /// The table: each key once per kind of option, with every subcommand that takes it.
    @Test func theTableListsEachKeyWithItsSubcommands() {
        let db = catalog.entries.filter { $0.key == "db" }
        #expect(db.count == 1 && db.first?.commands == ["record", "sessions"])
        #expect(catalog.entries.first { $0.key == "interval" }?.spec.defaultValue == "1s")
        #expect(catalog.entries.map(\.key) == catalog.entries.map(\.key).sorted())
    }
}
