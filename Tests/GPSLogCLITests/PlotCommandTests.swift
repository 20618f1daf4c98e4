// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// `gpslog plot` on tracks that are not the sample's few calm minutes: a log over months, a track without speeds
/// or with too few points to derive one, and a waypoint kilometres from the track. Read from the SVG's text and
/// geometry.
@Suite(.ownThreads) struct PlotCommandTests {
    /// The drawn picture of `gpx` (imported as one session) with both panels.
    static func plot(_ gpx: String, width: Int = 800) throws -> String {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            try gpx.write(toFile: dir + "/in.gpx", atomically: true, encoding: .utf8)
            let imported = try runGPSLog(["import", dir + "/in.gpx", "--name", "Plotted"], database: db)
            try #require(imported.status == 0, "\(imported.stderr)")
            let r = try runGPSLog(
                ["plot", "Plotted", "-o", dir + "/out.svg", "--panels", "speed,elevation", "--width", String(width)],
                database: db)
            try #require(r.status == 0, "\(r.stderr)")
            return try String(contentsOfFile: dir + "/out.svg", encoding: .utf8)
        }
    }

    static func gpx(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
        \(body)
        </gpx>
        """
    }

    /// Three minutes on 16 February and three on 8 May, in one GPX segment, with no speed: a log over months.
    static let monthsTrack = """
        <trk><name>Months</name><trkseg>
        <trkpt lat="52.3700" lon="4.8900"><ele>1</ele><time>2024-02-16T18:04:00Z</time></trkpt>
        <trkpt lat="52.3710" lon="4.8910"><ele>2</ele><time>2024-02-16T18:05:00Z</time></trkpt>
        <trkpt lat="52.3720" lon="4.8920"><ele>3</ele><time>2024-02-16T18:06:00Z</time></trkpt>
        <trkpt lat="52.3800" lon="4.9000"><ele>4</ele><time>2024-05-08T15:34:00Z</time></trkpt>
        <trkpt lat="52.3810" lon="4.9010"><ele>5</ele><time>2024-05-08T15:35:00Z</time></trkpt>
        <trkpt lat="52.3820" lon="4.9020"><ele>6</ele><time>2024-05-08T15:36:00Z</time></trkpt>
        </trkseg></trk>
        """
    /// The `d` of each `<path>` in `element` (the whole picture, or a group's text).
    static func paths(_ svg: Substring) -> [String] {
        svg.components(separatedBy: "<path d=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    /// The group `<g id="ID">` of the picture.
    static func group(_ id: String, in svg: String) -> Substring {
        guard let start = svg.range(of: "<g id=\"\(id)\"") else { return "" }
        let rest = svg[start.lowerBound...]
        return rest[..<(rest.range(of: "</g>\n<g id=")?.lowerBound ?? rest.range(of: "</svg>")!.lowerBound)]
    }

    /// The texts of the picture (what a reader sees), in order.
    static func texts(_ svg: Substring) -> [String] {
        svg.components(separatedBy: "<text ").dropFirst().map { part in
            let afterTag = part.drop { $0 != ">" }.dropFirst()
            return String(afterTag.prefix { $0 != "<" })
        }
    }

    /// The x and y of every point of a path.
    static func points(_ d: String) -> [(x: Double, y: Double)] {
        let numbers = d.split(whereSeparator: { "MLHVlz ".contains($0) }).compactMap { Double($0) }
        return stride(from: 0, to: numbers.count - 1, by: 2).map { (numbers[$0], numbers[$0 + 1]) }
    }

    /// Three minutes on 16 February and three on 8 May, one GPX segment, no speeds: the panels' times read
    /// `18:04 / 16:50 / 15:36`, undated; now they are dated, the lines break across the months (as they did),
    /// and the speed panel has the speeds derived from the positions and says so. A legend says what the symbols are.
    @Test func aLogOverMonthsIsDatedBrokenAtItsGapAndHasALegend() throws {
        let svg = try Self.plot(Self.gpx(Self.monthsTrack))
        for panel in ["speed", "elevation"] {
            let g = Self.group(panel, in: svg)
            let texts = Self.texts(g)
            #expect(texts.contains("2024-02-16 18:04") && texts.contains("2024-05-08 15:36"), "\(panel): \(texts)")
            let lines = Self.paths(g)
            #expect(lines.count == 1 && lines[0].filter { $0 == "M" }.count == 2, "\(panel): \(lines)")
        }
        #expect(Self.texts(Self.group("speed", in: svg)).first == "Speed derived from positions (km/h)")
        let track = try #require(Self.paths(svg[...]).first)
        #expect(track.filter { $0 == "M" }.count == 2, "the track in two lines: \(track)")
        let legend = Self.texts(Self.group("legend", in: svg))
        #expect(legend == ["track", "start", "end"], "\(legend)")
    }

    /// Points ten minutes apart and no speed: nothing to derive one from. The panel said nothing; now it says so.
    @Test func anEmptySpeedPanelSaysWhy() throws {
        let svg = try Self.plot(
            Self.gpx(
                """
                <trk><name>Sparse</name><trkseg>
                <trkpt lat="52.37" lon="4.89"><time>2024-05-01T10:00:00Z</time></trkpt>
                <trkpt lat="52.38" lon="4.90"><time>2024-05-01T10:10:00Z</time></trkpt>
                <trkpt lat="52.39" lon="4.91"><time>2024-05-01T10:20:00Z</time></trkpt>
                </trkseg></trk>
                """))
        let speed = Self.group("speed", in: svg)
        #expect(Self.paths(speed).isEmpty)
        #expect(
            Self.texts(speed).contains("No speed: the receiver gave none, and none can be derived from the positions."),
            "\(Self.texts(speed))")
        #expect(Self.texts(speed).contains("10:00") && Self.texts(speed).contains("10:20"), "one day: undated")
    }

    /// A walk of about 400 m and an untimed waypoint 50 km away: the view was fitted to both, the walk a speck of a
    /// few pixels. Now the view is the walk's, and the waypoint an arrow at the map's edge pointing its way (east),
    /// with its name; the legend says what the arrow is.
    @Test func aFarWaypointIsAnArrowAtTheEdgeAndTheTrackFillsTheMap() throws {
        let svg = try Self.plot(
            Self.gpx(
                """
                <wpt lat="52.3700" lon="5.6300"><name>Far &amp; away</name></wpt>
                <wpt lat="52.3712" lon="4.8915"><name>Near</name></wpt>
                <trk><name>Walk</name><trkseg>
                <trkpt lat="52.3700" lon="4.8900"><time>2024-05-01T10:00:00Z</time></trkpt>
                <trkpt lat="52.3710" lon="4.8920"><time>2024-05-01T10:01:00Z</time></trkpt>
                <trkpt lat="52.3720" lon="4.8940"><time>2024-05-01T10:02:00Z</time></trkpt>
                <trkpt lat="52.3730" lon="4.8960"><time>2024-05-01T10:03:00Z</time></trkpt>
                </trkseg></trk>
                """))
        let track = Self.points(try #require(Self.paths(svg[...]).first))
        let xs = track.map(\.x)
        let ys = track.map(\.y)
        #expect((xs.max()! - xs.min()!) > 300 || (ys.max()! - ys.min()!) > 300, "the walk fills the map: \(track)")
        let far = try #require(svg.range(of: "<g class=\"far-mark\">").map { svg[$0.lowerBound...] })
        #expect(Self.texts(far).first == "Far &amp; away")
        // The arrow is inside the map's frame (x from 20 to 780), at its right edge, turned east (0°).
        let arrow = try #require(far.range(of: "transform=\"translate(").map { far[$0.upperBound...] })
        let numbers = arrow.prefix { $0 != "\"" }.split(whereSeparator: { " ()".contains($0) || $0.isLetter })
            .compactMap { Double($0) }
        #expect(numbers.count == 3 && numbers[0] > 700 && numbers[0] < 780 && abs(numbers[2]) < 5, "\(numbers)")
        #expect(svg.contains(">Near</text>"), "a mark near the track is drawn where it is, with its label")
        #expect(Self.texts(Self.group("legend", in: svg)) == ["track", "start", "end", "mark", "mark off the map"])
    }
}
