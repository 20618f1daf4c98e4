// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// The points' attributes (`coordAttributes`) through the real binary: export, import into a fresh database, export
/// again gives the same bytes; `convert` carries them; a file with some over a bound imports without them and says so
/// on stderr; a malformed one imports nothing.
@Suite(.ownThreads)
struct GeoJSONAttributesRoundTripTests {
    /// A MultiLineString (two segments) whose points carry a phone app's attributes, nulls before the first and
    /// between, one value that needs escaping.
    static let fixture = #"""
        {"type":"FeatureCollection","features":[
        {"type":"Feature","geometry":{"type":"MultiLineString","coordinates":[[[5.1,52.1],[5.1001,52.1001],[5.1002,52.1002]],[[5.2,52.2],[5.2001,52.2001]]]},
        "properties":{"kind":"track","name":"Traccar <ride>","coordTimes":[["2024-05-01T08:00:00Z","2024-05-01T08:00:05Z","2024-05-01T08:00:10Z"],["2024-05-01T08:30:00Z","2024-05-01T08:30:05Z"]],
        "coordAttributes":[[null,{"alarm":"sos","mock":"true"},null],[{"driverUniqueId":"4711","note":"<b>\"x\"\\y\nz"},null]]}}
        ]}
        """#

    @Test func exportImportExportKeepsTheAttributesByteForByte() throws {
        try withTemporaryDirectory { dir in
            let source = dir + "/ride.geojson"
            try Self.fixture.write(toFile: source, atomically: true, encoding: .utf8)
            func run(_ arguments: [String], _ db: String) throws -> CommandResult {
                let r = try runGPSLog(arguments, database: db)
                #expect(r.status == 0, "\(arguments.joined(separator: " ")): \(r.stderr)")
                return r
            }
            let one = dir + "/one.sqlite"
            _ = try run(["import", source], one)
            let first = dir + "/first.geojson"
            _ = try run(["export", "Traccar <ride>", "--format", "geojson", "-o", first], one)
            let a = try String(contentsOfFile: first, encoding: .utf8)
            let attributes =
                #","coordAttributes":[[null,{"alarm":"sos","mock":"true"},null],[{"driverUniqueId":"4711","#
                + #""note":"<b>\"x\"\\y\nz"},null]]}}"#
            #expect(a.contains(attributes), "\(a)")

            let two = dir + "/two.sqlite"
            _ = try run(["import", first], two)
            let second = dir + "/second.geojson"
            _ = try run(["export", "Traccar <ride>", "--format", "geojson", "-o", second], two)
            #expect(try String(contentsOfFile: second, encoding: .utf8) == a)

            // `convert` reads them as import does and writes them as export does.
            let converted = dir + "/converted.geojson"
            _ = try run(["convert", source, converted], dir + "/unused.sqlite")
            let c = try String(contentsOfFile: converted, encoding: .utf8)
            #expect(c.contains(attributes), "\(c)")
        }
    }

    /// A value over 256 bytes, a 33rd key, a nested value: left out, said on stderr, the rest imported. A
    /// `coordAttributes` shorter than the coordinates: refused with the file and the JSON path, nothing imported.
    @Test func overABoundIsLeftOutAndAWrongLengthIsRefused() throws {
        try withTemporaryDirectory { dir in
            let many = (0..<33).map { String(format: "\"x%02d\":\"1\"", $0) }.joined(separator: ",")
            let over = Self.fixture.replacingOccurrences(
                of: #"{"alarm":"sos","mock":"true"}"#,
                with: #"{"alarm":""# + String(repeating: "v", count: 300) + #"","deep":{"a":[1]},"mock":"true"}"#
            ).replacingOccurrences(of: #"[{"driverUniqueId""#, with: "[{" + many + #","driverUniqueId""#)
            let path = dir + "/over.geojson"
            try over.write(toFile: path, atomically: true, encoding: .utf8)
            let db = dir + "/gpslog.sqlite"
            let r = try runGPSLog(["import", path], database: db)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("\(path): note: left out 5 attribute(s) of 2 position(s) in 'coordAttributes'"))
            #expect(r.stderr.contains("'alarm' (a value is at most 256 bytes)"), "\(r.stderr)")
            #expect(r.stderr.contains("'deep' (a value is a string, number or boolean)"), "\(r.stderr)")
            let out = try runGPSLog(["export", "Traccar <ride>", "--format", "geojson", "-o", "-"], database: db)
            #expect(out.stdout.contains(#"{"mock":"true"}"#), "\(out.stdout)")
            #expect(!out.stdout.contains("vvvv") && !out.stdout.contains("deep"))

            let short = Self.fixture.replacingOccurrences(of: #",null]]}}"#, with: "]]}}")
            let bad = dir + "/short.geojson"
            try short.write(toFile: bad, atomically: true, encoding: .utf8)
            let fresh = dir + "/fresh.sqlite"
            let refused = try runGPSLog(["import", bad], database: fresh)
            #expect(refused.status != 0)
            #expect(
                refused.stderr.contains(bad)
                    && refused.stderr.contains("5 positions but 4 'coordAttributes' (they pair one to one)"),
                "\(refused.stderr)")
            let listed = try runGPSLog(["sessions"], database: fresh)
            #expect(!listed.stdout.contains("Traccar"), "\(listed.stdout)")
        }
    }
}
