// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import GPSLogXML
import Testing

/// Every file is checked against its schema: the XSDs with libxml2, and structural JSON checks for GeoJSON
/// (RFC 7946) and Overland batches.
@Suite(.ownThreads)
struct SchemaValidationTests {
    @Test func gpxValidatesAgainstGPX11AndTrackPointExtensionV2() throws {
        try withTemporaryStore { store, _ in
            try withTemporaryDirectory { dir in
                let path = try ExportFixtures.export(
                    .gpx, store: store, session: try ExportFixtures.makeSampleSession(in: store), dir: dir)
                let validator = try SchemaValidator(
                    schemaPath: TestPaths.packageRoot + "/Schema/xsd/gpx-1.1+tpx-v2.wrapper.xsd")
                #expect(validator.validate(file: path) == [])
                let text = try String(contentsOfFile: path, encoding: .utf8)
                #expect(text.contains("<gpxtpx:speed>"))
                #expect(
                    text.contains("<name>Buoy &lt;7&gt; &amp; \"Kaap\" 🚤</name>")
                        || text.contains("<name>Buoy &lt;7&gt; &amp; &quot;Kaap&quot; 🚤</name>"))
            }
        }
    }

    @Test func sessionXMLValidatesAgainstItsSchema() throws {
        try withTemporaryStore { store, _ in
            try withTemporaryDirectory { dir in
                let path = try ExportFixtures.export(
                    .xml, store: store, session: try ExportFixtures.makeSampleSession(in: store), dir: dir)
                let validator = try SchemaValidator(schemaPath: TestPaths.packageRoot + "/Schema/gpslog-sessions.xsd")
                #expect(validator.validate(file: path) == [])
                // And the schema has teeth: a latitude out of range is caught, with its line.
                let broken = dir + "/broken.xml"
                try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(
                    of: "Latitude=\"52.850155\"", with: "Latitude=\"92.850155\""
                )
                .write(toFile: broken, atomically: true, encoding: .utf8)
                let errors = validator.validate(file: broken)
                #expect(!errors.isEmpty)
                #expect(errors.allSatisfy { $0.line > 1 && $0.message.contains("92.850155") })
            }
        }
    }

    @Test func geoJSONFollowsRFC7946() throws {
        try withTemporaryStore { store, _ in
            try withTemporaryDirectory { dir in
                let path = try ExportFixtures.export(
                    .geojson, store: store, session: try ExportFixtures.makeSampleSession(in: store), dir: dir)
                let root =
                    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
                    as! [String: Any]
                #expect(root["type"] as? String == "FeatureCollection")
                let features = root["features"] as! [[String: Any]]
                #expect(features.count == 2)
                let track = features[0]
                let geometry = track["geometry"] as! [String: Any]
                #expect(geometry["type"] as? String == "LineString")
                let coordinates = geometry["coordinates"] as! [[Double]]
                let times = (track["properties"] as! [String: Any])["coordTimes"] as! [String]
                #expect(coordinates.count == times.count && coordinates.count > 100)
                for c in coordinates {
                    // Longitude first: the sample is at 5.3° E, 52.8° N.
                    #expect(c[0] > 5 && c[0] < 6 && c[1] > 52 && c[1] < 53)
                }
                #expect(times.allSatisfy { Timestamp(iso8601: $0) != nil })
                let mark = features[1]
                #expect((mark["geometry"] as! [String: Any])["type"] as? String == "Point")
                #expect((mark["properties"] as! [String: Any])["label"] as? String == ExportFixtures.markLabel)
                // At most 7 decimals anywhere.
                let text = try String(contentsOfFile: path, encoding: .utf8)
                #expect(text.range(of: "[0-9]\\.[0-9]{8,}", options: .regularExpression) == nil)
            }
        }
    }

    @Test func aTimeGapMakesAMultiLineString() throws {
        try withTemporaryStore { store, _ in
            try withTemporaryDirectory { dir in
                let session = try store.createSession(name: "Gap", start: Timestamp(milliseconds: 1_700_000_000_000))
                let before = makeEntries(count: 5, seed: 1)
                let after = makeEntries(
                    count: 5, start: Timestamp(milliseconds: 1_700_000_000_000 + 3_600_000), seed: 2)
                try store.append(before + after, to: session.id)
                let path = try ExportFixtures.export(.geojson, store: store, session: session, dir: dir)
                let root =
                    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
                    as! [String: Any]
                let track = (root["features"] as! [[String: Any]])[0]
                let geometry = track["geometry"] as! [String: Any]
                #expect(geometry["type"] as? String == "MultiLineString")
                #expect((geometry["coordinates"] as! [[[Double]]]).map(\.count) == [5, 5])
                #expect(((track["properties"] as! [String: Any])["coordTimes"] as! [[String]]).map(\.count) == [5, 5])
                let gpx = try String(
                    contentsOfFile: try ExportFixtures.export(.gpx, store: store, session: session, dir: dir),
                    encoding: .utf8)
                #expect(gpx.components(separatedBy: "<trkseg>").count == 3)
            }
        }
    }

    @Test func overlandBatchesCarryEveryPropertyAndTheTrip() throws {
        try withTemporaryStore { store, _ in
            try withTemporaryDirectory { dir in
                let session = try ExportFixtures.makeSampleSession(in: store)
                var exporter = Exporter(format: .overland)
                exporter.batchSize = 50
                let paths = try exporter.export(
                    [SessionExport(store: store, session: session)], to: dir + "/batch.json")
                #expect(
                    paths.map { ($0 as NSString).lastPathComponent } == [
                        "batch.json", "batch-0002.json", "batch-0003.json",
                    ])
                var total = 0
                for path in paths {
                    let body =
                        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
                        as! [String: Any]
                    let locations = body["locations"] as! [[String: Any]]
                    total += locations.count
                    for feature in locations {
                        #expect(feature["type"] as? String == "Feature")
                        let props = feature["properties"] as! [String: Any]
                        for key in [
                            "timestamp", "speed", "course", "horizontal_accuracy", "vertical_accuracy",
                            "speed_accuracy",
                            "course_accuracy", "motion", "battery_state", "battery_level", "device_id", "wifi",
                        ] {
                            #expect(props[key] != nil, "missing \(key)")
                        }
                        #expect(props["speed_accuracy"] as? Double == -1)
                    }
                    let trip = body["trip"] as! [String: Any]
                    #expect(trip["mode"] as? String == "boat")
                    #expect(trip["start_location"] is [String: Any] && trip["current_location"] is [String: Any])
                }
                #expect(total == 147)
            }
        }
    }
}
