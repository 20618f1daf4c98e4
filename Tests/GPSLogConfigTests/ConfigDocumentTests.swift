// SPDX-License-Identifier: MIT
import GPSLogConfig
import Testing

/// The options of a small tool, as the command line would describe them.
let catalog = OptionCatalog(commands: [
    "record": [
        "min-distance": OptionSpec(name: "min-distance", kind: .option),
        "interval": OptionSpec(name: "interval", kind: .option, defaultValue: "1s"),
        "max-accuracy": OptionSpec(name: "max-accuracy", kind: .option),
        "split": OptionSpec(name: "split", kind: .option, isRepeating: true),
        "verbose": OptionSpec(name: "verbose", kind: .flag),
        "token": OptionSpec(name: "token", kind: .option),
        "token-file": OptionSpec(name: "token-file", kind: .option),
        "db": OptionSpec(name: "db", kind: .option),
    ],
    "sessions": [
        "json": OptionSpec(name: "json", kind: .flag), "db": OptionSpec(name: "db", kind: .option),
        "colour": OptionSpec(name: "colour", kind: .flag, inversion: "no-colour"),
    ],
])

func parse(_ text: String, path: String = "/c/config.toml") throws(ConfigError) -> ConfigDocument {
    try ConfigDocument.parse(text, path: path, catalog: catalog)
}

func error(_ text: String) -> String {
    do {
        _ = try parse(text)
        return "no error"
    } catch {
        return error.errorDescription ?? ""
    }
}

@Suite struct ConfigDocumentTests {
    @Test func keysSectionsAndProfilesWithTheirLines() throws {
        let d = try parse(
            """
            # comment
            json = true
            default-profile = "walk"

            [record]
            split = [
              "gap:10m",  # [not a table]
              "daily",
            ]
            min-distance = 50
            "interval" = "5s"

            [profile.walk.record]
            interval = "10s"
            """)
        #expect(d.settings.common == [ConfigEntry(key: "json", value: .boolean(true), line: 2)])
        #expect(
            d.settings.sections["record"] == [
                ConfigEntry(key: "split", value: .array([.string("gap:10m"), .string("daily")]), line: 6),
                ConfigEntry(key: "min-distance", value: .integer(50), line: 10),
                ConfigEntry(key: "interval", value: .string("5s"), line: 11),
            ])
        #expect(d.profileChoice?.line == 3)
        #expect(d.profiles["walk"]?.settings.sections["record"]?.first?.line == 14)
    }

    @Test func unknownKeysNameTheirLineAndASpelling() {
        #expect(
            error("# x\n[record]\nmin_distanse = 50\n").hasPrefix(
                "/c/config.toml:3: unknown key 'min_distanse' in [record]: did you mean 'min-distance'?"))
        #expect(
            error("interval = 1\njsn = true").hasPrefix("/c/config.toml:2: unknown key 'jsn': did you mean 'json'?"))
        #expect(error("[record]\njson = true").hasPrefix("/c/config.toml:2: unknown key 'json' in [record]"))
        #expect(error("\n[recrod]\n").hasPrefix("/c/config.toml:2: unknown table [recrod]: did you mean [record]?"))
        #expect(error("[profile.x.sesions]\njson = true").contains(":1: unknown table [profile.x.sesions]"))
    }

    @Test func valuesOfTheWrongKind() {
        #expect(error("[record]\n\nverbose = 1").hasPrefix("/c/config.toml:3: verbose: is a flag: write true or false"))
        #expect(error("[record]\ninterval = [\"1s\"]").hasPrefix("/c/config.toml:2: interval: takes one value"))
        #expect(error("[record]\nsplit = [[1]]").contains("split: holds an array"))
        #expect(error("[record]\ninterval = 1979-05-27").contains("interval: takes a string or a number"))
        #expect(error("profile = 3").contains("profile: must be a profile's name"))
        #expect(error("profile = \"a\"\ndefault-profile = \"b\"").contains("give profile or default-profile, not both"))
        #expect(error("config = \"x\"").contains("'config' cannot be set in a config file"))
        #expect(error("[record]\nprofile = \"x\"").contains("a profile is chosen at the top of the file"))
    }

    @Test func syntaxErrorsCarryTOMLKitsLine() {
        let message = error("json = true\n\n[record\n")
        #expect(message.hasPrefix("/c/config.toml:3: "), "\(message)")
        #expect(message.contains("not valid TOML"))
    }
}
