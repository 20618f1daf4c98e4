// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

@Suite(.ownThreads)
struct ImportTests {
    /// export -> import into a fresh database -> export gives the same bytes, for every format gpslog reads back.
    @Test(arguments: [ExportFormat.xml, .gpx, .overland, .owntracks, .rec])
    func exportImportExportGivesTheSameBytes(format: ExportFormat) throws {
        try withTemporaryDirectory { dir in
            for sub in ["/a", "/b"] {
                try FileManager.default.createDirectory(atPath: dir + sub, withIntermediateDirectories: true)
            }
            let first = try withTemporaryStore { store, _ in
                try ExportFixtures.export(
                    format, store: store, session: try ExportFixtures.makeSampleSession(in: store), dir: dir + "/a")
            }
            try withTemporaryStore { store, _ in
                let results = try FileImporter().importFile(first, into: store)
                #expect(results.count == 1)
                let second = try ExportFixtures.export(
                    format, store: store, session: results[0].session, dir: dir + "/b")
                #expect(
                    try Data(contentsOf: URL(fileURLWithPath: first)) == Data(contentsOf: URL(fileURLWithPath: second)))
            }
        }
    }

    @Test func labelsWithControlCharactersRoundTripInJSONAndStayWellFormedInXML() throws {
        let label = "Tab\there \"q\" <&> 🚲 bell\u{7}"
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
            try withTemporaryStore { store, _ in
                let s = try store.createSession(name: label, start: Timestamp(milliseconds: 0))
                var mark = makeEntries(count: 1)[0]
                mark.marked = true
                mark.label = label
                try store.append(makeEntries(count: 3, seed: 9) + [mark], to: s.id)
                let xml = dir + "/out/s.xml"
                try Exporter(format: .xml).export([SessionExport(store: store, session: s)], to: xml)
                let jsonl = dir + "/out/s.jsonl"
                try Exporter(format: .geojson).export([SessionExport(store: store, session: s)], to: jsonl)
                let geo =
                    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: jsonl)))
                    as! [String: Any]
                let props = ((geo["features"] as! [[String: Any]]).last!["properties"] as! [String: Any])
                #expect(props["label"] as? String == label)
                try withTemporaryStore { other, _ in
                    let back = try FileImporter().importFile(xml, into: other)
                    let marks = try other.marks(of: back[0].session.id).all()
                    #expect(marks.first?.label == "Tab\there \"q\" <&> 🚲 bell\u{FFFD}")
                    #expect(back[0].session.name == "Tab\there \"q\" <&> 🚲 bell\u{FFFD}")
                }
            }
        }
    }

    @Test(.enabled(if: TestPaths.hasSharedData, "needs ../shared/data"))
    func everyRealGPXFileImports() throws {
        let folders = [TestPaths.sharedData + "/gpx", TestPaths.sharedData + "/gpx/peers"]
        var files = 0
        for folder in folders {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder).filter({ $0.hasSuffix(".gpx") })
                .sorted()
            {
                let path = folder + "/" + name
                let text = try String(contentsOfFile: path, encoding: .utf8)
                let points =
                    text.components(separatedBy: "<trkpt").count - 1 + text.components(separatedBy: "<rtept").count - 1
                let waypoints = text.components(separatedBy: "<wpt").count - 1
                try withTemporaryStore { store, _ in
                    var importer = FileImporter()
                    importer.options.routes = true
                    let results = try importer.importFile(path, into: store)
                    let summaries = try results.map { try store.summary(of: $0.session) }
                    #expect(summaries.map(\.trackPointCount).reduce(0, +) == points, "\(name)")
                    #expect(summaries.map(\.markCount).reduce(0, +) == waypoints, "\(name)")
                }
                files += 1
            }
        }
        #expect(files >= 13)
    }

    @Test(.enabled(if: TestPaths.hasSharedData, "needs ../shared/data"))
    func realOverlandAndOwnTracksPayloadsImport() throws {
        let folder = TestPaths.sharedData + "/payloads/"
        try withTemporaryStore { store, _ in
            let overland = try FileImporter().importFile(folder + "overland-geodata.json", into: store)
            // The second feature is an app-lifecycle record without geometry: skipped.
            #expect(overland[0].entries == 1)
            var entry: Entry?
            try store.entries(of: overland[0].session.id).forEach { entry = $0 }
            #expect(entry?.time == Timestamp(iso8601: "2015-10-01T08:00:00-0700"))
            #expect(
                entry?.motion == ["driving", "stationary"] && entry?.batteryState == .charging
                    && entry?.batteryLevel == 0.89)
            #expect(entry?.verticalAccuracy == nil && entry?.wifi == "launchpad" && entry?.speed == 4)
            for rec in ["owntracks-2024-03.rec", "owntracks-2023-02_old.rec"] {
                let r = try FileImporter().importFile(folder + rec, into: store)
                // Every location but a repeat of the one before it (its time and place: one point per instant);
                // two places in one second (OwnTracks' times are whole seconds) are both kept.
                let text = try String(contentsOfFile: folder + rec, encoding: .utf8)
                let locations = try text.split(separator: "\n").compactMap { line -> String? in
                    guard let brace = line.firstIndex(of: "{"),
                        let json = try JSONSerialization.jsonObject(with: Data(line[brace...].utf8)) as? [String: Any],
                        json["_type"] as? String == "location"
                    else { return nil }
                    return "\(json["tst"] ?? "") \(json["lat"] ?? "") \(json["lon"] ?? "")"
                }
                let distinct = zip(locations, [""] + locations.dropLast()).filter { $0 != $1 }.count
                #expect(distinct < locations.count || rec.hasPrefix("owntracks-2024"), "\(rec): no repeat to drop")
                #expect(r[0].entries == distinct, "\(rec)")
            }
        }
    }
}
