// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// Google location history split into local days, counted by a dry run, and refused whole when it is hostile.
@Suite(.ownThreads)
struct GoogleSplitAndHostileTests {
    /// Records.json (layout as in `GoogleImportTests.records`) of one point per time.
    static func records(_ times: [String]) -> String {
        let records = times.enumerated().map { i, t in
            #"{"timestamp": "\#(t)", "latitudeE7": \#(523_700_000 + i * 1000), "longitudeE7": 48950000, "accuracy": 9}"#
        }
        return "{\"locations\": [\n" + records.joined(separator: ",\n") + "\n]}\n"
    }

    /// The sessions made of `text` with a session per day in `zone`: their names and point counts, in order.
    static func days(_ text: String, zone: String) throws -> [String] {
        try withTemporaryDirectory { dir in
            let path = dir + "/Records.json"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return try withTemporaryStore { store, _ in
                var importer = FileImporter()
                importer.options.splitByDay = TimeZone(identifier: zone)!
                return try importer.importFile(path, into: store).map { "\($0.session.name): \($0.entries)" }
            }
        }
    }

    @Test func aSessionPerLocalDayInTheGivenZone() throws {
        // 23:30 and 00:30 in Amsterdam (UTC+1) are one day apart; in UTC they are the same day.
        let text = Self.records(["2022-02-12T22:30:00Z", "2022-02-12T23:30:00Z", "2022-02-13T10:00:00Z"])
        #expect(try Self.days(text, zone: "UTC") == ["Records 2022-02-12: 2", "Records 2022-02-13: 1"])
        #expect(
            try Self.days(text, zone: "Europe/Amsterdam") == ["Records 2022-02-12: 1", "Records 2022-02-13: 2"])
    }

    @Test func daysFollowDaylightSavingTime() throws {
        // Amsterdam moves from UTC+1 to UTC+2 at 2022-03-27T01:00Z: 21:30Z is still the 27th there, 22:30Z the 28th.
        let text = Self.records([
            "2022-03-26T22:30:00Z", "2022-03-26T23:30:00Z", "2022-03-27T00:59:59Z", "2022-03-27T01:00:00Z",
            "2022-03-27T21:30:00Z", "2022-03-27T22:30:00Z",
        ])
        #expect(
            try Self.days(text, zone: "Europe/Amsterdam") == [
                "Records 2022-03-26: 1", "Records 2022-03-27: 4", "Records 2022-03-28: 1",
            ])
    }

    /// The Android export lists raw signals after every segment: a day's session is found again when its raw
    /// signals come, and starts at the earliest of them.
    @Test func aDayThatComesBackJoinsItsSession() throws {
        let text = """
            {"semanticSegments": [
              {"startTime": "2024-05-01T08:00:00.000+02:00", "endTime": "2024-05-01T10:00:00.000+02:00",
               "timelinePath": [{"point": "52.37°, 4.89°", "time": "2024-05-01T08:04:00.000+02:00"}]},
              {"startTime": "2024-05-02T08:00:00.000+02:00", "endTime": "2024-05-02T10:00:00.000+02:00",
               "timelinePath": [{"point": "52.38°, 4.90°", "time": "2024-05-02T08:04:00.000+02:00"}]}
            ],
            "rawSignals": [
              {"position": {"LatLng": "52.36°, 4.88°", "timestamp": "2024-05-01T07:00:00.000+02:00"}},
              {"position": {"LatLng": "52.39°, 4.91°", "timestamp": "2024-05-02T11:00:00.000+02:00"}}
            ]}
            """
        try withTemporaryDirectory { dir in
            let path = dir + "/Timeline.json"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            try withTemporaryStore { store, _ in
                var importer = FileImporter()
                importer.options.splitByDay = TimeZone(identifier: "Europe/Amsterdam")!
                importer.name = "Phone"
                let results = try importer.importFile(path, into: store)
                #expect(results.map(\.session.name) == ["Phone 2024-05-01", "Phone 2024-05-02"])
                #expect(results.map(\.entries) == [2, 2])
                let first = try #require(try store.session(id: results[0].session.id))
                #expect(first.start == Timestamp(iso8601: "2024-05-01T05:00:00Z"))
                #expect(first.end == Timestamp(iso8601: "2024-05-01T06:04:00Z"))
                let second = try #require(try store.session(id: results[1].session.id))
                #expect(second.start == Timestamp(iso8601: "2024-05-02T06:04:00Z"))
                #expect(second.end == Timestamp(iso8601: "2024-05-02T09:00:00Z"))
            }
        }
    }

    @Test func aDryRunCountsPointsAndVisitsAndWritesNothing() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/2022_MARCH.json"
            try GoogleImportTests.semantic.write(toFile: path, atomically: true, encoding: .utf8)
            var importer = FileImporter()
            importer.options.splitByDay = TimeZone(identifier: "UTC")!
            let planned = try importer.dryRun(path)
            #expect(planned.count == 1)
            #expect(planned[0].name == "2022_MARCH 2022-03-03" && planned[0].points == 4 && planned[0].visits == 1)
            #expect(planned[0].start == Timestamp(iso8601: "2022-03-03T10:41:08.315Z"))
            #expect(planned[0].end == Timestamp(iso8601: "2022-03-03T12:43:34Z"))
        }
    }

    /// A good record, then `bad` as the second (`bad` is the record's members, or a whole document when it starts
    /// with `!`).
    static func file(_ bad: String) -> String {
        if bad.hasPrefix("!") { return String(bad.dropFirst()) }
        return """
            {"locations": [
            {"timestamp": "2022-01-12T17:18:24Z", "latitudeE7": 414216106, "longitudeE7": 21684775},
            {\(bad)}
            ]}
            """
    }

    static let good = #""timestamp": "2022-01-12T17:19:24Z", "latitudeE7": 414216106, "longitudeE7": 21684775"#

    /// Each hostile file and what its refusal must say after the file's name.
    static let hostile: [(name: String, text: String, says: String)] = [
        ("depth", file(good + #", "x": "# + String(repeating: "[", count: 10_000)), "nested deeper than 64 levels"),
        ("nan", file(#""latitudeE7": NaN"#), "'N' cannot start a JSON value"),
        ("inf", file(#""latitudeE7": 1e400"#), "1e400 is not a finite number at locations[1].latitudeE7"),
        (
            "huge", file(#""latitudeE7": 1e300, "longitudeE7": 1, "timestamp": "2022-01-12T17:19:24Z""#),
            "3: locations[1].latitudeE7 '1e+300' is not valid"
        ),
        (
            "range", file(#""latitudeE7": 950000000, "longitudeE7": 1"#),
            "3: locations[1].latitudeE7 '950000000' is not valid"
        ),
        ("fraction", file(#""longitudeE7": 21684775.5"#), "locations[1].longitudeE7 '21684775.5' is not valid"),
        ("string", file(#""latitudeE7": "414216106""#), "locations[1].latitudeE7 '414216106' is not valid"),
        ("bool", file(good + #", "accuracy": true"#), "a number expected at locations[1].accuracy"),
        ("object", file(#"!{"locations": {"latitudeE7": 1}}"#), "'locations' is not an array"),
        ("truncated", String(file(good).dropLast(8)), "the file ends inside locations[1]"),
        (
            "time", file(#""timestamp": "yesterday", "latitudeE7": 1, "longitudeE7": 1"#),
            "locations[1].timestamp 'yesterday' is not valid"
        ),
        ("future", file(#""timestamp": "2999-01-01T00:00:00Z""#), "'2999-01-01T00:00:00Z (outside 1980 to tomorrow)'"),
        ("ms", file(#""timestampMs": "12x""#), "locations[1].timestampMs '12x' is not valid"),
        (
            "visit",
            file(
                #"!{"timelineObjects": [{"placeVisit": {"location": {"latitudeE7": 1, "longitudeE7": 1}, "duration": {"startTimestamp": "2022-03-03T10:00:00Z", "endTimestamp": "2022-03-03T09:00:00Z"}}}]}"#
            ), "timelineObjects[0].placeVisit.duration.endTimestamp"
        ),
        (
            "offset",
            file(
                #"![{"timelinePath": [{"point": "geo:52,5", "durationMinutesOffsetFromStartTime": "4"}], "startTime": "2024-05-01T08:00:00Z"}]"#
            ), "before its 'startTime' at [0].timelinePath[0].durationMinutesOffsetFromStartTime"
        ),
        (
            "latlng",
            file(#"!{"semanticSegments": [{"timelinePath": [{"point": "91°, 5°", "time": "2024-05-01T08:00:00Z"}]}]}"#),
            "semanticSegments[0].timelinePath[0].point '91°, 5°' is not valid"
        ),
        ("neither", file(#"!{"type": "Feature"}"#), "not Google location history"),
        ("more", file(good) + "{}", "more after the end of the JSON value"),
    ]

    @Test(arguments: hostile.indices)
    func hostileInputIsRefusedWholeNamingTheFileAndPath(_ i: Int) throws {
        let (name, text, says) = Self.hostile[i]
        try withTemporaryDirectory { dir in
            let path = dir + "/\(name).json"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            try withTemporaryStore { store, _ in
                do {
                    _ = try FileImporter().importFile(path, format: .google, into: store)
                    Issue.record("\(name): imported")
                } catch let error as ImportError {
                    let message = error.errorDescription ?? ""
                    #expect(message.hasPrefix(path + ":") && message.contains(says), "\(name): \(message)")
                    #expect(message.hasSuffix("nothing was imported."))
                }
                #expect(try store.sessions().isEmpty, "\(name): a session was kept")
            }
        }
    }
}
