// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// What one pass over the sessions learns before anything is drawn: the extent of the track in space and time,
/// the ranges of the panels, and the marks (a few per session).
struct PlotSurvey {
    /// The track points' extent (the marks' when there is no track point).
    var minLatitude = Double.infinity
    var maxLatitude = -Double.infinity
    var minLongitude = Double.infinity
    var maxLongitude = -Double.infinity
    var start: Timestamp?
    var end: Timestamp?
    /// The fastest speed, the receiver's or derived (`SpeedDeriver`); `speedDerived` when one was derived.
    var maxSpeed = 0.0
    var hasSpeed = false
    var speedDerived = false
    var minAltitude = Double.infinity
    var maxAltitude = -Double.infinity
    var points = 0
    var distance = 0.0
    var marks: [Entry] = []
    private var last: Entry?
    private var deriver = SpeedDeriver()

    /// The most marks drawn with their label; the rest as dots (a map of a thousand labels shows none).
    static let maxLabels = 200

    mutating func add(_ e: Entry, startsSegment: Bool) {
        minLatitude = min(minLatitude, e.latitude)
        maxLatitude = max(maxLatitude, e.latitude)
        minLongitude = min(minLongitude, e.longitude)
        maxLongitude = max(maxLongitude, e.longitude)
        start = start.map { min($0, e.time) } ?? e.time
        end = end.map { max($0, e.time) } ?? e.time
        if let v = deriver.speed(of: startsSegment ? e.startingSegment : e) {
            maxSpeed = max(maxSpeed, v.metresPerSecond)
            hasSpeed = true
            if v.derived { speedDerived = true }
        }
        if let a = e.altitude, a.isFinite {
            minAltitude = min(minAltitude, a)
            maxAltitude = max(maxAltitude, a)
        }
        if let p = last, !startsSegment {
            distance += Geo.distance(lat1: p.latitude, lon1: p.longitude, lat2: e.latitude, lon2: e.longitude)
        }
        last = e
        points += 1
    }

    mutating func addMark(_ e: Entry) { marks.append(e) }

    /// Starts the distance and the speeds again for the next session (its track does not join this one's).
    mutating func endSession() {
        last = nil
        deriver = SpeedDeriver()
    }

    var hasAltitude: Bool { minAltitude <= maxAltitude }

    /// The part of the earth the map shows: the track, and the marks near it (within the track's own size of it,
    /// and at least `PlotFrame.minimumExtent`); the marks further away are drawn at the map's edge, pointing their
    /// way, so that a waypoint kilometres off does not shrink the track to a speck. Without a track, all the marks.
    func view() -> (minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double) {
        guard points > 0 else {
            return (
                marks.map(\.latitude).min() ?? 0, marks.map(\.latitude).max() ?? 0,
                marks.map(\.longitude).min() ?? 0, marks.map(\.longitude).max() ?? 0
            )
        }
        var box = (minLatitude, maxLatitude, minLongitude, maxLongitude)
        for m in marks where isNear(m) {
            box = (
                min(box.0, m.latitude), max(box.1, m.latitude), min(box.2, m.longitude), max(box.3, m.longitude)
            )
        }
        return box
    }

    /// Whether a mark is near enough to the track to be in the map's view (see `view()`).
    func isNear(_ m: Entry) -> Bool {
        guard points > 0 else { return true }
        let cosLatitude = max(0.01, cos((minLatitude + maxLatitude) / 2 * .pi / 180))
        let height = (maxLatitude - minLatitude) * .pi / 180 * PlotFrame.earthRadius
        let width = (maxLongitude - minLongitude) * .pi / 180 * PlotFrame.earthRadius * cosLatitude
        let reach = max(PlotFrame.minimumExtent, width, height)
        let dLatitude = reach / PlotFrame.earthRadius * 180 / .pi
        let dLongitude = dLatitude / cosLatitude
        return (minLatitude - dLatitude...maxLatitude + dLatitude).contains(m.latitude)
            && (minLongitude - dLongitude...maxLongitude + dLongitude).contains(m.longitude)
    }
}

extension Entry {
    /// The entry as the first point of a segment (no speed is derived across the break before it).
    fileprivate var startingSegment: Entry {
        var e = self
        e.startsSegment = true
        return e
    }
}

/// A local projection of the track onto the page: equirectangular around the middle latitude (x east, y north, in
/// metres), which keeps shapes and the scale bar true to well under 1 % across the few hundred kilometres of a
/// day's track; a plot of a continent would need a real projection, and is not what `plot` is for.
struct PlotFrame {
    /// Page width and the map's place on it.
    let width: Double
    let margin = 20.0
    let top: Double
    let mapHeight: Double
    /// Pixels per metre.
    let scale: Double
    private let latitude0: Double
    private let longitude0: Double
    private let cosLatitude0: Double
    private let centre: (x: Double, y: Double)

    static let earthRadius = 6_371_008.8
    /// Pixels between the track's extent and the map's frame.
    static let padding = 30.0
    /// The smallest extent drawn, in metres: a session that never moved is a dot in 200 m of map.
    static let minimumExtent = 200.0

    init(survey: PlotSurvey, width: Double, top: Double, maxMapHeight: Double) {
        self.width = width
        self.top = top
        let s = survey.view()
        latitude0 = (s.minLatitude + s.maxLatitude) / 2
        longitude0 = (s.minLongitude + s.maxLongitude) / 2
        cosLatitude0 = cos(latitude0 * .pi / 180)
        let extentX = max(
            Self.minimumExtent, (s.maxLongitude - s.minLongitude) * .pi / 180 * Self.earthRadius * cosLatitude0)
        let extentY = max(Self.minimumExtent, (s.maxLatitude - s.minLatitude) * .pi / 180 * Self.earthRadius)
        let mapWidth = width - 2 * margin
        // Room around the track inside the frame, so that start, end and labels are not cut by it.
        let inset = 2 * Self.padding
        scale = min((mapWidth - inset) / extentX, (maxMapHeight - inset) / extentY)
        mapHeight = max(200, extentY * scale + inset)
        centre = (margin + mapWidth / 2, top + mapHeight / 2)
    }

    /// Where a position falls on the page, in pixels.
    func point(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        let x = (longitude - longitude0) * .pi / 180 * Self.earthRadius * cosLatitude0
        let y = (latitude - latitude0) * .pi / 180 * Self.earthRadius
        return (centre.x + x * scale, centre.y - y * scale)
    }

    /// Whether a point on the page is inside the map's frame.
    func contains(_ p: (x: Double, y: Double)) -> Bool {
        (margin...width - margin).contains(p.x) && (top...top + mapHeight).contains(p.y)
    }

    /// Where the line from the map's centre to `p` (outside the frame) meets the frame drawn `inset` pixels inside
    /// it, and the direction of `p` from the centre (radians, 0 east, counter-clockwise as on a map).
    func edge(towards p: (x: Double, y: Double), inset: Double) -> (x: Double, y: Double, angle: Double) {
        let (dx, dy) = (p.x - centre.x, p.y - centre.y)
        let halfWidth = (width - 2 * margin) / 2 - inset
        let halfHeight = mapHeight / 2 - inset
        let t = min(dx == 0 ? .infinity : halfWidth / abs(dx), dy == 0 ? .infinity : halfHeight / abs(dy))
        return (centre.x + dx * t, centre.y + dy * t, atan2(-dy, dx))
    }

    /// A round length (1, 2 or 5 times a power of ten metres) about a fifth of the map wide, for the scale bar.
    var scaleBarMetres: Double {
        let target = (width - 2 * margin) / 5 / scale
        let power = pow(10, floor(log10(target)))
        return [5.0, 2, 1].map { $0 * power }.first { $0 <= target } ?? power
    }

    /// `1.5 km`, `200 m`.
    static func lengthText(_ metres: Double) -> String {
        metres >= 1000
            ? DecimalText.string(metres / 1000, places: metres.truncatingRemainder(dividingBy: 1000) == 0 ? 0 : 1)
                + " km"
            : DecimalText.string(metres, places: 0) + " m"
    }
}

/// Builds an SVG path from points, leaving out those within half a pixel of the last one kept: a million-point
/// track becomes as many points as its drawn length in pixels, whatever the session size.
struct PathBuilder {
    private(set) var bytes: [UInt8] = []
    private var last: (x: Double, y: Double)?
    private var pendingMove = true

    /// The next point; `newLine` starts a subpath (a new segment).
    mutating func add(_ p: (x: Double, y: Double), newLine: Bool = false) {
        if newLine { pendingMove = true }
        if !pendingMove, let last, abs(p.x - last.x) < 0.5, abs(p.y - last.y) < 0.5 { return }
        bytes.append(UInt8(ascii: pendingMove ? "M" : "L"))
        DecimalText.append(p.x, places: 1, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        DecimalText.append(p.y, places: 1, to: &bytes)
        pendingMove = false
        last = p
    }

    var isEmpty: Bool { bytes.isEmpty }
}

extension String {
    /// The text as XML (or HTML) character data or an attribute value: markup characters escaped, tab and newline
    /// as spaces, and characters XML 1.0 cannot hold (other C0 controls, C1, U+FFFE/U+FFFF) replaced by U+FFFD.
    public var xmlEscaped: String {
        var out = ""
        out.reserveCapacity(count)
        for scalar in unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n": out += " "
            case _
            where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0xFFFE
                || scalar.value == 0xFFFF:
                out.unicodeScalars.append("\u{FFFD}")
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
