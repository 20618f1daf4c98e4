// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogTestSupport
import Testing

/// `coordAttributes` (gpslog's per-position attributes) as `GeoJSONReader` reports them: paired one to one with the
/// positions whichever member comes first, within the bounds `serve` keeps a Traccar client's, long lines through
/// the scratch file.
@Suite(.ownThreads)
struct GeoJSONAttributesReaderTests {
    /// What the reader reported.
    final class Recorder: GeoJSONVisitor {
        var points: [(latitude: Double, time: Timestamp?, attributes: [String: String]?, startsPart: Bool)] = []
        var lines = 0
        var notes: [String] = []
        func point(_ position: GeoJSONPosition, properties: GeoJSONProperties) throws {}
        func beginLine(properties: GeoJSONProperties) throws { lines += 1 }
        func linePoint(
            _ position: GeoJSONPosition, time: Timestamp?, attributes: [String: String]?, startsPart: Bool
        ) throws {
            points.append((position.latitude, time, attributes, startsPart))
        }
        func endLine() throws {}
        func note(_ text: String) { notes.append(text) }
    }

    static func read(_ text: String) throws -> Recorder {
        let recorder = Recorder()
        try withTemporaryDirectory { dir in
            try text.write(toFile: dir + "/track.geojson", atomically: true, encoding: .utf8)
            try GeoJSONReader.read(dir + "/track.geojson", into: recorder)
        }
        return recorder
    }

    static let coordinates = "[[[5.1,52.1],[5.2,52.2]],[[5.3,52.3]]]"
    static let times = #"[["2024-05-01T08:00:00Z","2024-05-01T08:00:01Z"],["2024-05-01T08:10:00Z"]]"#
    static let attributes = #"[[{"alarm":"sos","mock":"true"},null],[{"count":3,"ok":false,"ratio":0.5}]]"#

    /// gpslog's order (geometry, coordTimes, coordAttributes) and togeojson's (properties first), attributes before
    /// or after the times: the same points. Numbers and booleans are kept as their text, as `serve` keeps a Traccar
    /// client's extras.
    @Test func attributesPairWithPositionsInAnyOrder() throws {
        let geometry = #""geometry":{"type":"MultiLineString","coordinates":"# + Self.coordinates + "}"
        let timesThenAttributes =
            #""properties":{"kind":"track","coordTimes":"# + Self.times + #","coordAttributes":"# + Self.attributes
            + "}"
        let attributesThenTimes =
            #""properties":{"coordAttributes":"# + Self.attributes + #","coordTimes":"# + Self.times + "}"
        let files = [
            #"{"type":"Feature","# + geometry + "," + timesThenAttributes + "}",
            #"{"type":"Feature","# + timesThenAttributes + "," + geometry + "}",
            #"{"type":"Feature","# + geometry + "," + attributesThenTimes + "}",
            #"{"type":"Feature","# + attributesThenTimes + "," + geometry + "}",
        ]
        let expected: [[String: String]?] = [
            ["alarm": "sos", "mock": "true"], nil, ["count": "3", "ok": "false", "ratio": "0.5"],
        ]
        for text in files {
            let r = try Self.read(text)
            #expect(r.lines == 1)
            #expect(r.points.map(\.attributes) == expected, "\(text)")
            #expect(r.points.map(\.latitude) == [52.1, 52.2, 52.3])
            #expect(r.points.map(\.startsPart) == [false, false, true])
            #expect(r.points.last?.time == Timestamp(iso8601: "2024-05-01T08:10:00Z"))
            #expect(r.notes.isEmpty, "\(r.notes)")
        }
    }

    /// A key over a bound, a value over one, a 33rd key, a nested or null value: left out, the rest kept, and a
    /// note says which (as `serve` stores a Traccar location without them).
    @Test func overABoundIsLeftOutWithANote() throws {
        var many: [String] = (0..<33).map { String(format: "\"k%02d\":\"v\"", $0) }
        many.sort()
        let objects = [
            "{" + many.joined(separator: ",") + "}",
            #"{"note":""# + String(repeating: "v", count: 300) + #"","ok":"yes"}"#,
            #"{""# + String(repeating: "k", count: 65) + #"":"1","ok":"yes"}"#,
            #"{"deep":{"a":1},"list":[1,2],"none":null,"ok":"yes"}"#,
            "{}",
        ]
        let coordinates = (0..<objects.count).map { "[5.\($0),52.\($0)]" }.joined(separator: ",")
        let times = (0..<objects.count).map { "\"2024-05-01T08:00:0\($0)Z\"" }.joined(separator: ",")
        let text =
            #"{"type":"Feature","geometry":{"type":"LineString","coordinates":["# + coordinates
            + #"]},"properties":{"coordTimes":["# + times + #"],"coordAttributes":["#
            + objects.joined(separator: ",") + "]}}"
        let r = try Self.read(text)
        let kept = r.points.map(\.attributes)
        #expect(kept.count == 5)
        #expect(kept[0]?.count == 32 && kept[0]?["k31"] == "v" && kept[0]?["k32"] == nil)
        #expect(kept[1] == ["ok": "yes"] && kept[2] == ["ok": "yes"] && kept[3] == ["ok": "yes"])
        #expect(kept[4] == nil, "an empty object is none")
        #expect(r.notes.count == 1, "\(r.notes)")
        let note = r.notes.first ?? ""
        #expect(note.contains("left out 6 attribute(s) of 4 position(s) in 'coordAttributes'"), "\(note)")
        #expect(note.contains("'k32' (at most 32 keys"), "\(note)")
        #expect(note.contains("'note' (a value is at most 256 bytes)"), "\(note)")
        #expect(note.contains("(a key is 1 to 64 bytes)"), "\(note)")
    }

    /// A long line with attributes on every point, its members in gpslog's order: all set aside (past the spool's
    /// 1 MiB in memory, into its file) and read back in order.
    @Test func aLongLineReadsBackThroughTheScratchFile() throws {
        let n = 20_000
        var coordinates: [String] = []
        var times: [String] = []
        var attributes: [String] = []
        let start = Timestamp(iso8601: "2024-05-01T00:00:00Z")!
        for i in 0..<n {
            coordinates.append("[5.0,\(50 + Double(i) / 100_000)]")
            times.append("\"\(Timestamp(milliseconds: start.milliseconds + Int64(i) * 1000).iso8601())\"")
            // Records of different lengths, so one straddles the file's 64 KiB reads.
            attributes.append(
                i % 7 == 0
                    ? "null" : #"{"i":""# + String(i) + #"","pad":""# + String(repeating: "x", count: i % 97) + #""}"#)
        }
        let text =
            #"{"type":"Feature","geometry":{"type":"LineString","coordinates":["# + coordinates.joined(separator: ",")
            + #"]},"properties":{"coordTimes":["# + times.joined(separator: ",") + #"],"coordAttributes":["#
            + attributes.joined(separator: ",") + "]}}"
        let r = try Self.read(text)
        #expect(r.points.count == n)
        let wrong = r.points.indices.filter { i in
            let a = r.points[i].attributes
            return i % 7 == 0 ? a != nil : a != ["i": String(i), "pad": String(repeating: "x", count: i % 97)]
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        #expect(r.points.last?.time == Timestamp(milliseconds: start.milliseconds + Int64(n - 1) * 1000))
    }

    /// Not as many as the positions, not an array, an element neither an object nor null: refused with the JSON path.
    @Test(arguments: [
        (
            #"{"type":"Feature","geometry":{"type":"LineString","coordinates":[[5,52],[5.1,52.1]]},"properties":{"coordAttributes":[null]}}"#,
            "2 positions but 1 'coordAttributes' (they pair one to one)"
        ),
        (
            #"{"type":"Feature","properties":{"coordAttributes":[null]},"geometry":{"type":"LineString","coordinates":[[5,52],[5.1,52.1]]}}"#,
            "more positions than 'coordAttributes' (1) at geometry.coordinates[1]"
        ),
        (
            #"{"type":"Feature","properties":{"coordAttributes":[null,null,null]},"geometry":{"type":"LineString","coordinates":[[5,52],[5.1,52.1]]}}"#,
            "2 positions but 3 'coordAttributes' (they pair one to one)"
        ),
        (
            #"{"type":"Feature","properties":{"coordAttributes":{"a":"b"}},"geometry":{"type":"LineString","coordinates":[[5,52]]}}"#,
            "'coordAttributes' is not an array (of an object or null per position) at properties.coordAttributes"
        ),
        (
            #"{"type":"Feature","properties":{"coordAttributes":[null,"x"]},"geometry":{"type":"LineString","coordinates":[[5,52],[5.1,52.1]]}}"#,
            "a position's attributes are an object of text values or null at properties.coordAttributes[1]"
        ),
    ])
    func malformedAttributesAreRefused(text: String, message: String) throws {
        let error = #expect(throws: ImportError.self) { _ = try Self.read(text) }
        let description = error?.errorDescription ?? ""
        #expect(description.contains("track.geojson") && description.contains(message), "\(description)")
    }
}
