// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogTestSupport
import Testing

/// The one GPX reader, as replay sees it: timed track points only, with speed and course from GPX 1.0 or Garmin's
/// TrackPointExtension.
@Suite(.ownThreads)
struct GPXReaderTests {
    static let gpx11 = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"
             xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
          <metadata><name>Doc</name><time>2024-05-01T07:00:00Z</time></metadata>
          <wpt lat="52.5" lon="5.5"><time>2024-05-01T08:00:00Z</time><name>Buoy</name></wpt>
          <rte><rtept lat="52.0" lon="5.0"><time>2024-05-01T08:00:00Z</time></rtept></rte>
          <trk><name>Sail</name><type>boat</type><trkseg>
            <trkpt lat="52.1" lon="5.1"><ele>-1.5</ele><time>2024-05-01T08:00:01Z</time><name>not a label</name>
              <sat>9</sat><hdop>0.8</hdop><fix>3d</fix>
              <extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>2.5</gpxtpx:speed><gpxtpx:course>360</gpxtpx:course>
              </gpxtpx:TrackPointExtension></extensions></trkpt>
            <trkpt lat="52.2" lon="5.2"></trkpt>
            <trkpt lat="52.3" lon="5.3"><time>2024-05-01T08:00:03Z</time></trkpt>
          </trkseg></trk>
        </gpx>
        """

    static let gpx10 = """
        <?xml version="1.0"?>
        <gpx version="1.0" creator="t" xmlns="http://www.topografix.com/GPX/1/0">
          <trk><trkseg><trkpt lat="-33.5" lon="151.25"><time>2024-05-01T08:00:00.250Z</time>
            <course>90.5</course><speed>4</speed></trkpt></trkseg></trk>
        </gpx>
        """

    func fixes(_ text: String) throws -> [Fix] {
        try withTemporaryDirectory { dir in
            let path = dir + "/t.gpx"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            var fixes: [Fix] = []
            try GPXFixReader(path: path).read { fixes.append($0) }
            return fixes
        }
    }

    @Test func replayGetsTheTimedTrackPointsWithGarminsSpeedAndCourse() throws {
        let fixes = try fixes(Self.gpx11)
        #expect(fixes.count == 2)  // no waypoint, no route point, no untimed point
        #expect(
            fixes[0]
                == Fix(
                    time: Timestamp(iso8601: "2024-05-01T08:00:01Z")!, latitude: 52.1, longitude: 5.1, altitude: -1.5,
                    speed: 2.5, course: 0,
                    satellites: 9, hdop: 0.8, fixMode: .threeD))
        #expect(fixes[1] == Fix(time: Timestamp(iso8601: "2024-05-01T08:00:03Z")!, latitude: 52.3, longitude: 5.3))
    }

    @Test func replayGetsGPX10sSpeedAndCourse() throws {
        #expect(
            try fixes(Self.gpx10) == [
                Fix(
                    time: Timestamp(milliseconds: Timestamp(iso8601: "2024-05-01T08:00:00Z")!.milliseconds + 250),
                    latitude: -33.5,
                    longitude: 151.25, speed: 4, course: 90.5)
            ])
    }

    @Test func aFileThatIsNotGPXIsRefused() throws {
        let error = #expect(throws: ImportError.self) {
            try fixes(#"<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"/>"#)
        }
        #expect(error?.errorDescription?.contains("not GPX 1.0 or 1.1") == true)
    }

    /// Keeps what the reader hands on: the track's name and each waypoint's label and address.
    final class TextCollector: GPXVisitor {
        var trackName: String?
        var labels: [String?] = []
        var addresses: [String?] = []
        func trackHeader(_ header: GPXTrackHeader) { trackName = header.name }
        func waypoint(_ point: inout Entry, hasTime: Bool) throws {
            labels.append(point.label)
            addresses.append(point.address)
        }
        func trackPoint(_ point: inout Entry, hasTime: Bool) throws {}
    }

    func read(_ text: String) throws -> TextCollector {
        try withTemporaryDirectory { dir in
            let path = dir + "/t.gpx"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let collector = TextCollector()
            try GPXReader.read(path, into: collector)
            return collector
        }
    }

    static func document(_ body: String) -> String {
        #"<?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">"# + body
            + "</gpx>"
    }

    /// Hardening finding 6: a 200 MB track name was read whole (818 MB) and became the session name. The reader
    /// now keeps a text's limit (in bytes, four to a character) as it reads, and white space around it is no text.
    @Test func longTextsAreCutWhileReading() throws {
        let huge = String(repeating: "A", count: 5_000_000)
        let padding = String(repeating: " ", count: 3_000_000)
        let collector = try read(
            Self.document(
                "<wpt lat=\"1\" lon=\"1\"><name>\(huge)</name><desc>\(huge)</desc></wpt>"
                    + "<trk><name>\(padding)Harbour run\(padding)</name><trkseg/></trk>"
                    + "<trk><name>\(huge)</name><trkseg/></trk>"))
        #expect(collector.labels.count == 1)
        let label = try #require(collector.labels[0])
        let address = try #require(collector.addresses[0])
        #expect(label.utf8.count == (TextLimit.label + 1) * 4)
        #expect(address.utf8.count == (TextLimit.address + 1) * 4)
        #expect(label.truncated(to: TextLimit.label).count == TextLimit.label)
        #expect(collector.trackName?.utf8.count == (TextLimit.sessionName + 1) * 4)
    }

    @Test func paddingAroundANameIsNotText() throws {
        let padding = String(repeating: " \n", count: 2_000_000)
        let collector = try read(Self.document("<trk><name>\(padding)Harbour run\(padding)</name><trkseg/></trk>"))
        #expect(collector.trackName == "Harbour run")
    }

    /// A number or time longer than any real one is refused, naming the line and showing the value cut.
    @Test func anOverlongNumberIsRefusedNamingTheLine() throws {
        let digits = String(repeating: "1", count: 1_000_000)
        let error = #expect(throws: ImportError.self) {
            try read(
                Self.document("\n<trk><trkseg><trkpt lat=\"1\" lon=\"1\">\n<ele>\(digits)</ele></trkpt></trkseg></trk>")
            )
        }
        let message = try #require(error?.errorDescription)
        #expect(message.contains("t.gpx:3: ele '111"))
        #expect(message.count < 300)
    }

    /// Found by the fuzzer: GPX points at 0, 0 and times in the years 0000 or 9999 were imported, and an OwnTracks
    /// export of them wrote lines gpslog's own import refuses. Every value stored must be one gpslog reads back: a
    /// time before 1980 is a device's "no time" (the point is untimed, so not a fix to replay), one past tomorrow is
    /// refused.
    @Test func pointsAtZeroZeroAreSkippedAndTimesOutsideTheWindowRefused() throws {
        let zero = try fixes(
            Self.document(
                "<trk><trkseg><trkpt lat=\"0\" lon=\"0\"><time>2024-05-01T08:00:00Z</time></trkpt>"
                    + "<trkpt lat=\"52\" lon=\"5\"><time>2024-05-01T08:00:01Z</time></trkpt></trkseg></trk>"))
        #expect(zero.map(\.latitude) == [52])
        for year in ["0000", "1970"] {
            let untimed = try fixes(
                Self.document(
                    "<trk><trkseg><trkpt lat=\"52\" lon=\"5\"><time>\(year)-05-01T08:00:00Z</time></trkpt>"
                        + "<trkpt lat=\"52\" lon=\"5\"><time>2024-05-01T08:00:01Z</time></trkpt></trkseg></trk>"))
            #expect(untimed.map(\.time) == [Timestamp(iso8601: "2024-05-01T08:00:01Z")!])
        }
        for year in ["9999"] {
            let error = #expect(throws: ImportError.self) {
                try fixes(
                    Self.document(
                        "\n<trk><trkseg>\n<trkpt lat=\"52\" lon=\"5\"><time>\(year)-05-01T08:00:00Z</time></trkpt></trkseg></trk>"
                    ))
            }
            #expect(error?.errorDescription?.contains("t.gpx:3: time '\(year)-05-01T08:00:00Z' is not valid") == true)
        }
    }
}
