// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// GeoJSON and CSV as gpslog writes them come back as they were, and as other trackers write them they import.
@Suite(.ownThreads)
struct GeoJSONImportTests {
    /// UUIDs (entry ids: GeoJSON names marks by id, and an import makes new ones).
    static func withoutIDs(_ text: String) -> String {
        text.replacingOccurrences(
            of: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", with: "UUID",
            options: .regularExpression)
    }

    /// Export, import into a fresh database, export again: the same file, but for the entries' ids; the session
    /// keeps its id, name, mode, start and end; every track point, mark and (CSV) heading row comes back.
    @Test(arguments: [ExportFormat.geojson, .csv])
    func exportImportExportGivesTheSamePoints(format: ExportFormat) throws {
        try withTemporaryDirectory { dir in
            for sub in ["/a", "/b"] {
                try FileManager.default.createDirectory(atPath: dir + sub, withIntermediateDirectories: true)
            }
            var original: Session!
            var originalEntries: [Entry] = []
            let first = try withTemporaryStore { store, _ in
                original = try ExportFixtures.makeSampleSession(in: store)
                try store.entries(of: original.id).forEach { originalEntries.append($0) }
                return try ExportFixtures.export(format, store: store, session: original, dir: dir + "/a")
            }
            try withTemporaryStore { store, _ in
                let results = try FileImporter().importFile(first, into: store)
                #expect(results.count == 1)
                let session = results[0].session
                #expect(session.id == original.id)
                #expect(session.name == original.name)
                var back: [Entry] = []
                try store.entries(of: session.id).forEach { back.append($0) }
                let expected = format == .csv ? originalEntries : originalEntries.filter { !$0.isHeadingChanged }
                #expect(back.count == expected.count)
                for (a, b) in zip(expected, back) {
                    #expect(abs(a.latitude - b.latitude) < 1e-7 && abs(a.longitude - b.longitude) < 1e-7)
                    #expect(a.time == b.time && a.marked == b.marked && a.label == b.label)
                }
                let second = try ExportFixtures.export(format, store: store, session: session, dir: dir + "/b")
                let a = try String(contentsOfFile: first, encoding: .utf8)
                let b = try String(contentsOfFile: second, encoding: .utf8)
                #expect(Self.withoutIDs(a) == Self.withoutIDs(b))
                if format == .geojson {
                    let stored = try store.session(id: session.id)!
                    #expect(
                        stored.mode == original.mode && stored.start == original.start && stored.end == original.end)
                }
            }
        }
    }

    /// Points as trackers export them: each time property, each unit, each name for the same column.
    @Test func pointsFromOtherTrackersMapToTheSameColumns() throws {
        let features = [
            // Overland (and its compass export): ISO timestamp, -1 unknown, battery 0...1.
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[5.1,52.1,3]},"properties":{"timestamp":"2024-05-01T08:00:00Z","speed":-1,"horizontal_accuracy":5,"battery_level":0.5,"battery_state":"charging","motion":["walking"]}}"#,
            // GPSLogger: time, time_long, accuracy, bearing, battery in %.
            #"{"type": "Feature","properties":{"time":"2024-05-01T08:00:10.000Z","provider":"gps","time_long":1714550410000,"accuracy":4.5,"altitude":7.0,"bearing":90.0,"speed":2.0,"battery":80},"geometry":{"type":"Point","coordinates":[5.2,52.2]}}"#,
            // ocat: tst, isotst, vel in km/h, cog, acc, batt, addr.
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[5.3,52.3]},"properties":{"_type":"location","tid":"jj","tst":1714550420,"isotst":"2024-05-01T08:00:20Z","vel":36,"cog":180,"acc":12,"batt":40,"addr":"Dam 1"}}"#,
            // Dawarich: Unix seconds in timestamp, battery_status, string coordinates among the properties.
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[5.4,52.4]},"properties":{"timestamp":1714550430,"latitude":"52.4","longitude":"5.4","altitude":9,"battery_status":"full","velocity":"12"}}"#,
        ]
        let text = #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",\n") + "]}"
        try withTemporaryDirectory { dir in
            let path = dir + "/trackers.geojson"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(try ImportFormat.detect(path: path) == .geojson)
            try withTemporaryStore { store, _ in
                let results = try FileImporter().importFile(path, into: store)
                #expect(results.count == 1 && results[0].session.name == "trackers")
                var e: [Entry] = []
                try store.entries(of: results[0].session.id).forEach { e.append($0) }
                #expect(e.count == 4)
                #expect(e.map(\.time.milliseconds) == [0, 10, 20, 30].map { 1_714_550_400_000 + $0 * 1000 })
                #expect(e[0].speed == nil && e[0].horizontalAccuracy == 5 && e[0].altitude == 3)
                #expect(e[0].batteryLevel == 0.5 && e[0].batteryState == .charging && e[0].motion == ["walking"])
                #expect(
                    e[1].horizontalAccuracy == 4.5 && e[1].course == 90 && e[1].speed == 2 && e[1].batteryLevel == 0.8)
                #expect(
                    e[2].speed == 10 && e[2].course == 180 && e[2].horizontalAccuracy == 12 && e[2].address == "Dam 1")
                #expect(e[3].altitude == 9 && e[3].batteryState == .full && e[3].speed == nil)
            }
        }
    }

    /// togeojson writes the properties (with `coordTimes`, nested per line) before the geometry; newer versions
    /// `coordinateProperties.times`. Times pair with positions either way; a MultiLineString's lines are segments.
    @Test func linesWithTimesBeforeOrAfterTheirCoordinates() throws {
        let times = #"[["2024-05-01T08:00:00Z","2024-05-01T08:00:01Z"],["2024-05-01T08:10:00Z"]]"#
        let coordinates = "[[[5.1,52.1],[5.2,52.2]],[[5.3,52.3,4.5]]]"
        let files = [
            "props-first.geojson":
                #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Ride","coordTimes":"#
                + times + #"},"geometry":{"type":"MultiLineString","coordinates":"# + coordinates + "}}]}",
            "geometry-first.geojson":
                #"{"features":[{"geometry":{"coordinates":"# + coordinates
                + #","type":"MultiLineString"},"properties":{"name":"Ride","coordinateProperties":{"times":"# + times
                + "}},\"type\":\"Feature\"}],\"type\":\"FeatureCollection\"}",
        ]
        try withTemporaryDirectory { dir in
            for (name, text) in files {
                let path = dir + "/" + name
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                try withTemporaryStore { store, _ in
                    let results = try FileImporter().importFile(path, into: store)
                    #expect(results.map(\.session.name) == ["Ride"], "\(name)")
                    var e: [Entry] = []
                    try store.entries(of: results[0].session.id).forEach { e.append($0) }
                    #expect(e.map(\.latitude) == [52.1, 52.2, 52.3], "\(name)")
                    #expect(e.map(\.startsSegment) == [false, false, true], "\(name)")
                    #expect(e.last?.altitude == 4.5 && e.last?.time == Timestamp(iso8601: "2024-05-01T08:10:00Z"))
                }
            }
        }
    }

    /// `coordAttributes` become the points' attributes, also for a line without times (its points wait in a
    /// scratch file for a time); what is over a bound is left out and said in a note, the rest imported.
    @Test func coordAttributesBecomeThePointsAttributes() throws {
        let long = String(repeating: "v", count: 300)
        let text =
            #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"LineString","#
            + #""coordinates":[[5.1,52.1],[5.2,52.2],[5.3,52.3]]},"properties":{"name":"Untimed","coordAttributes":"#
            + #"[{"alarm":"sos"},null,{"note":""# + long + #"","nested":{"a":1},"ok":true}]}}]}"#
        try withTemporaryDirectory { dir in
            let path = dir + "/untimed.geojson"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let imported = try GPXInTheWildTests.run(path)
            #expect(imported.names == ["Untimed"])
            #expect(imported.entries.map(\.attributes) == [["alarm": "sos"], nil, ["ok": "true"]])
            let note = imported.notes.first { $0.contains("coordAttributes") } ?? ""
            #expect(note.contains("left out 2 attribute(s) of 1 position(s)"), "\(imported.notes)")
            #expect(note.contains("'note' (a value is at most 256 bytes)"), "\(note)")
            #expect(note.contains("'nested' (a value is a string, number or boolean)"), "\(note)")
        }
    }
}
