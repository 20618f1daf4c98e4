// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogPipeline
import GPSLogSampling
import GPSLogStore
import GPSLogTestSupport
import GPSLogXML
import Testing

/// A segment start stored on a row (`Entries.StartsSegment`: a receiver lost for a moment, an imported trkseg)
/// breaks the track in every format that has segments, survives the session XML and GPX round trips, and is what
/// the writer stores after a source comes back.
@Suite(.ownThreads)
struct SegmentStartTests {
    /// Ten points a second apart; the sixth starts a segment although only a second passed.
    static func makeBrokenTrack(in store: Store) throws -> Session {
        let session = try store.createSession(name: "Unplugged", start: Timestamp(milliseconds: 1_700_000_000_000))
        var entries = makeEntries(count: 10)
        entries[5].startsSegment = true
        try store.append(entries, to: session.id)
        return session
    }

    static func trksegs(_ path: String) throws -> [Int] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.components(separatedBy: "<trkseg>").dropFirst().map {
            $0.components(separatedBy: "<trkpt").count - 1
        }
    }

    @Test func aStoredSegmentStartBreaksTheTrackInEveryFormat() throws {
        try withTemporaryStore { store, _ in
            try withTemporaryDirectory { dir in
                let session = try Self.makeBrokenTrack(in: store)
                let gpx = try ExportFixtures.export(.gpx, store: store, session: session, dir: dir)
                #expect(try Self.trksegs(gpx) == [5, 5])
                let validator = try SchemaValidator(
                    schemaPath: TestPaths.packageRoot + "/Schema/xsd/gpx-1.1+tpx-v2.wrapper.xsd")
                #expect(validator.validate(file: gpx) == [])

                let geojson = try ExportFixtures.export(.geojson, store: store, session: session, dir: dir)
                let root =
                    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: geojson)))
                    as! [String: Any]
                let geometry = (root["features"] as! [[String: Any]])[0]["geometry"] as! [String: Any]
                #expect(geometry["type"] as? String == "MultiLineString")
                #expect((geometry["coordinates"] as! [[[Double]]]).map(\.count) == [5, 5])

                let kml = try String(
                    contentsOfFile: try ExportFixtures.export(.kml, store: store, session: session, dir: dir),
                    encoding: .utf8)
                #expect(kml.contains("<gx:MultiTrack>"))
                #expect(kml.components(separatedBy: "<gx:Track>").count - 1 == 2)

                // Simplified, each segment keeps both its ends: the track still breaks where it did.
                let simplified = try ExportFixtures.export(
                    .gpx, store: store, session: session, dir: dir, simplify: 50)
                #expect(try Self.trksegs(simplified) == [2, 2])
            }
        }
    }

    @Test func theSessionXMLCarriesItValidAndAnImportKeepsIt() throws {
        try withTemporaryStore { store, _ in
            try withTemporaryDirectory { dir in
                let session = try Self.makeBrokenTrack(in: store)
                let xml = try ExportFixtures.export(.xml, store: store, session: session, dir: dir)
                let text = try String(contentsOfFile: xml, encoding: .utf8)
                #expect(text.components(separatedBy: "StartsSegment=\"true\"").count - 1 == 1)
                let validator = try SchemaValidator(schemaPath: TestPaths.packageRoot + "/Schema/gpslog-sessions.xsd")
                #expect(validator.validate(file: xml) == [])

                let copy = try Store(path: dir + "/copy.sqlite")
                defer { copy.close() }
                let imported = try SessionXMLImporter().importFile(xml, into: copy)
                var flags: [Bool] = []
                try copy.entries(of: imported[0].session.id).forEach { flags.append($0.startsSegment) }
                #expect(flags == (0..<10).map { $0 == 5 })
            }
        }
    }

    @Test func aGPXTrackKeepsItsSegmentsThroughAnImport() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/three.gpx"
            func points(_ seconds: ClosedRange<Int>) -> String {
                seconds.map { s in
                    "<trkpt lat=\"52.\(100 + s)\" lon=\"5.1\"><time>2024-05-01T10:00:\(String(format: "%02d", s))Z</time></trkpt>"
                }.joined()
            }
            // An empty trkseg between the first two starts nothing of its own.
            let gpx = """
                <?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk>
                <trkseg>\(points(0...2))</trkseg><trkseg></trkseg><trkseg>\(points(3...4))</trkseg>
                <trkseg>\(points(5...7))</trkseg></trk></gpx>
                """
            try gpx.write(toFile: path, atomically: true, encoding: .utf8)
            try withTemporaryStore { store, _ in
                let result = try GPXImporter().importFile(path, into: store)
                var starts: [Int] = []
                var i = 0
                try store.entries(of: result[0].session.id).forEach { e in
                    if e.startsSegment { starts.append(i) }
                    i += 1
                }
                #expect(starts == [3, 5])
                let out = try ExportFixtures.export(.gpx, store: store, session: result[0].session, dir: dir)
                #expect(try Self.trksegs(out) == [3, 2, 3])
            }
        }
    }

    @Test func theWriterStartsASegmentAtTheFirstPointAfterTheSourceCameBack() throws {
        try withTemporaryStore { store, _ in
            var writer = SessionPipeline(sink: store, name: "Car", policy: SamplingPolicy())
            // Coming back before the first fix starts nothing: the track starts there anyway.
            writer.sourceResumed()
            let start = Timestamp(milliseconds: 1_700_000_000_000)
            func fix(_ second: Int, north metres: Double) -> Fix {
                Fix(
                    time: start.adding(milliseconds: Int64(second) * 1000),
                    latitude: 52 + metres / 111_195, longitude: 5, horizontalAccuracy: 4, speed: 0)
            }
            try writer.add(fix(0, north: 0))
            try writer.add(fix(10, north: 100))
            writer.sourceResumed()
            // Back at the same place, standing still: without the resume it would only count as the same place.
            try writer.add(fix(12, north: 100))
            try writer.add(fix(20, north: 200))
            try writer.finish()
            var rows: [(Bool, Int)] = []
            try store.entries(of: writer.session!.id).forEach { rows.append(($0.startsSegment, $0.instanceCount)) }
            #expect(rows.map(\.0) == [false, false, true, false])
            #expect(rows.map(\.1) == [1, 1, 1, 1])
        }
    }
}

/// The automatic pause ends a running trip, which then says it stopped automatically (Overland's record).
@Suite(.ownThreads)
struct TripPauseTests {
    @Test func thePauseEndsARunningTrip() throws {
        try withTemporaryStore { store, _ in
            var writer = SessionPipeline(
                sink: store, naming: .fixed("Day"), policy: SamplingPolicy(),
                stays: StayRules(pauseAfterMilliseconds: 600_000))
            let start = Timestamp(milliseconds: 1_700_000_000_000)
            func fix(_ second: Int, north metres: Double = 0) -> Fix {
                Fix(
                    time: start.adding(milliseconds: Int64(second) * 1000), latitude: 52 + metres / 111_195,
                    longitude: 5, horizontalAccuracy: 4, speed: 0)
            }
            try writer.add(fix(0))
            try writer.startTrip(mode: .walk, name: nil)
            for s in stride(from: 10, through: 610, by: 10) { try writer.add(fix(s, north: Double(s % 20))) }
            #expect(writer.trip == nil)
            try writer.add(fix(700, north: 300))
            try writer.finish()
            let sessions = try store.sessions()
            #expect(sessions.map(\.isTrip) == [false, true, false])
            #expect(sessions[1].stoppedAutomatically == true && sessions[1].mode == .walk)
            #expect(sessions[1].name.hasPrefix("walk 2023-11-14"))
        }
    }
}

/// A source that reads only through `forEachEntry`: what `SessionSource`'s default `forEachTrackPosition` makes of it.
private final class EntriesOnly: SessionSource {
    let store: Store
    init(_ store: Store) { self.store = store }
    func forEachMark(of id: String, from: Timestamp?, to: Timestamp?, _ body: (Entry) throws -> Void) throws {
        try store.forEachMark(of: id, from: from, to: to, body)
    }
    func forEachEntry(
        of id: String, from: Timestamp?, to: Timestamp?, fields: EntryFields, _ body: (Entry) throws -> Void
    ) throws { try store.forEachEntry(of: id, from: from, to: to, fields: fields, body) }
    func visits(of id: String) throws -> [Visit] { try store.visits(of: id) }
    func transitions(of id: String) throws -> [Transition] { try store.transitions(of: id) }
}

extension SegmentStartTests {
    /// The store's lean read of track positions (five columns, no entries made) gives what the entries give: the
    /// track points only, in time order, each segment start, within a time range too; and prefetched the same.
    @Test func theStoresTrackPositionsAreTheEntriesTrackPoints() throws {
        try withTemporaryStore { store, _ in
            let session = try Self.makeBrokenTrack(in: store)
            var extra = makeEntries(count: 3, start: Timestamp(milliseconds: 1_700_000_002_500), seed: 2)
            extra[0].marked = true
            extra[0].label = "Buoy"
            extra[1].isHeadingChanged = true
            extra[1].heading = 90
            extra[1].headingTime = extra[1].time
            try store.append(extra, to: session.id)
            let read = { (source: any SessionSource, from: Timestamp?) throws -> [String] in
                var rows: [String] = []
                try source.forEachTrackPosition(of: session.id, from: from, to: nil) { p in
                    rows.append("\(p.key) \(p.time.milliseconds) \(p.latitude) \(p.longitude) \(p.startsSegment)")
                }
                return rows
            }
            for from in [nil, Timestamp(milliseconds: 1_700_000_003_000)] {
                let lean = try read(store, from)
                #expect(lean == (try read(EntriesOnly(store), from)))
                #expect(lean == (try read(PrefetchingSource(store, batchSize: 2), from)))
            }
            let all = try read(store, nil)
            #expect(all.count == 11, "ten points and the third extra, no mark, no heading change: \(all)")
            #expect(all.filter { $0.hasSuffix("true") }.count == 1)
        }
    }
}
