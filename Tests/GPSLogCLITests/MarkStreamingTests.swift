// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// Hardening finding 7: marks stream as track points do. A GPX of a million waypoints imported at 436 MB and every
/// export of it took about 900 MB, because waypoints waited for their track in an array and exports loaded a
/// session's marks into one. Each command is run as a process of its own and its peak resident size compared with
/// the same command on a file of ten waypoints: the difference must stay small, where holding 300,000 marks takes
/// over 100 MB.
@Suite(.ownThreads, .serialized)
struct MarkStreamingTests {
    static let count = 300_000
    static let allowedGrowth = 48 * 1024 * 1024

    /// A GPX of `count` timed waypoints (in time order, so `convert` takes its streaming paths) and a short track.
    static func writeWaypoints(_ count: Int, to path: String) throws {
        FileManager.default.createFile(atPath: path, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? out.close() }
        var text = #"<?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">"#
        let start = 1_700_000_000
        for i in 0..<count {
            let time = Timestamp(seconds: Double(start + i)).iso8601()
            text += "\n<wpt lat=\"\(52 + Double(i) * 1e-6)\" lon=\"\(5 + Double(i) * 1e-6)\"><time>\(time)</time>"
            text += "<name>Waypoint \(i) by the harbour wall</name><desc>Quay \(i), Enkhuizen</desc></wpt>"
            if text.utf8.count > 1 << 20 {
                try out.write(contentsOf: Data(text.utf8))
                text = ""
            }
        }
        text += "\n<trk><name>Harbour</name><trkseg>"
        for i in 0..<10 {
            let time = Timestamp(seconds: Double(start + i)).iso8601()
            text += "<trkpt lat=\"52.5\" lon=\"\(5 + Double(i) * 1e-4)\"><time>\(time)</time></trkpt>"
        }
        text += "</trkseg></trk></gpx>\n"
        try out.write(contentsOf: Data(text.utf8))
    }

    /// Runs the command on the small file and on the big one; checks both succeeded and the big one's peak.
    func expectFlat(_ arguments: (String) -> [String], small: String, big: String, database: (String) -> String)
        throws
    {
        let dir = (big as NSString).deletingLastPathComponent
        let baseline = try runGPSLogMeasuringMemory(
            arguments(small), database: database("small"), outputPath: dir + "/small")
        let run = try runGPSLogMeasuringMemory(arguments(big), database: database("big"), outputPath: dir + "/big")
        let command = arguments(big).prefix(3).joined(separator: " ")
        #expect(
            baseline.status == 0 && run.status == 0,
            "\(command): \((try? String(contentsOfFile: dir + "/big.err", encoding: .utf8)) ?? "")")
        let growth = run.peakBytes - baseline.peakBytes
        #expect(
            growth < Self.allowedGrowth,
            "\(command) with \(Self.count) marks took \(growth / 1024 / 1024) MB more than with 10 (peaks \(run.peakBytes / 1024 / 1024) and \(baseline.peakBytes / 1024 / 1024) MB)"
        )
    }

    func occurrences(of needle: String, in path: String) throws -> Int {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.components(separatedBy: needle).count - 1
    }

    @Test func importExportAndConvertOfManyWaypointsKeepMemoryFlat() throws {
        try withTemporaryDirectory { dir in
            let small = dir + "/small.gpx"
            let big = dir + "/big.gpx"
            try Self.writeWaypoints(10, to: small)
            try Self.writeWaypoints(Self.count, to: big)
            let db = { (name: String) in dir + "/\(name).sqlite" }

            // import: the waypoints wait for the track in a scratch file.
            try expectFlat({ ["import", $0] }, small: small, big: big, database: db)
            let store = try Store(path: db("big"))
            defer { store.close() }
            let session = try #require(try store.sessions().first)
            #expect(try store.summary(of: session).markCount == Self.count)
            #expect(try store.marks(of: session.id).next()?.label == "Waypoint 0 by the harbour wall")

            // export: the marks are read through a cursor, for GPX before the track and for GeoJSON after it.
            for format in ["gpx", "geojson"] {
                let output = { (file: String) in file.replacingOccurrences(of: ".gpx", with: ".out.\(format)") }
                try expectFlat(
                    { ["export", "Harbour", "--format", format, "-o", output($0)] }, small: small, big: big,
                    database: db)
                let marks = try occurrences(of: format == "gpx" ? "<wpt " : #""kind":"mark""#, in: output(big))
                #expect(marks == Self.count, "\(format) export")
            }

            // convert: to GeoJSON as one stream (marks set aside as features), to KML through the spool.
            for format in ["geojson", "kml"] {
                let output = { (file: String) in file.replacingOccurrences(of: ".gpx", with: ".c.\(format)") }
                try expectFlat({ ["convert", $0, output($0)] }, small: small, big: big, database: db)
                let marks = try occurrences(of: format == "kml" ? "<Point>" : #""kind":"mark""#, in: output(big))
                #expect(marks == Self.count, "\(format) convert")
            }
        }
    }

    /// Marks out of time order are put in order on every path (the streaming ones hand over to the store, which
    /// sorts), and a waypoint without a time takes the session's start.
    @Test func marksOutOfOrderAreSortedOnEveryPath() throws {
        try withTemporaryDirectory { dir in
            let gpx = dir + "/unordered.gpx"
            try """
            <?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">
            <wpt lat="52.3" lon="5.3"><time>2024-05-01T10:03:00Z</time><name>Third</name></wpt>
            <wpt lat="52.1" lon="5.1"><time>2024-05-01T10:01:00Z</time><name>First</name></wpt>
            <wpt lat="52.0" lon="5.0"><name>Untimed</name></wpt>
            <wpt lat="52.2" lon="5.2"><time>2024-05-01T10:02:00Z</time><name>Second</name></wpt>
            <trk><name>T</name><trkseg><trkpt lat="52" lon="5"><time>2024-05-01T10:00:00Z</time></trkpt>
            <trkpt lat="52.4" lon="5.4"><time>2024-05-01T10:04:00Z</time></trkpt></trkseg></trk></gpx>
            """.write(toFile: gpx, atomically: true, encoding: .utf8)
            let expected = ["Untimed", "First", "Second", "Third"]
            for format in ["geojson", "gpx", "csv"] {
                let out = dir + "/c." + format
                let r = try runGPSLog(["convert", gpx, out], database: dir + "/none.sqlite")
                #expect(r.status == 0, "\(r.stderr)")
                let text = try String(contentsOfFile: out, encoding: .utf8)
                let positions = expected.map { text.range(of: $0)?.lowerBound }
                #expect(!positions.contains(nil), "\(format): \(text)")
                #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "\(format): \(text)")
            }
            let db = dir + "/g.sqlite"
            #expect(try runGPSLog(["import", gpx], database: db).status == 0)
            let store = try Store(path: db)
            defer { store.close() }
            let session = try #require(try store.sessions().first)
            let marks = try store.marks(of: session.id).all()
            #expect(marks.map(\.label) == expected)
            #expect(marks.first?.time == session.start)
        }
    }
}
