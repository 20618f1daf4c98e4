// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// The speed and elevation panels under the map: one line per segment against time (broken where the track is),
/// the range on the left, the times of start, middle and end below (dated when the session spans days). The speed
/// is the receiver's, or derived from the positions (`SpeedDeriver`, as the web view's chart), and the panel says
/// so; a panel with nothing to draw says that instead.
extension SVGPlotWriter {
    func drawPanel(
        _ panel: Panel, sessions: [SessionExport], survey: PlotSurvey, top: Double, into svg: inout SVGText
    ) throws {
        guard let start = survey.start, let end = survey.end else { return }
        let left = 70.0
        let right = Double(width) - 20
        let height = Self.panelHeight
        let (low, high, unit): (Double, Double, String) =
            switch panel {
            case .speed: (0, max(1, survey.maxSpeed * 3.6), "km/h")
            case .elevation:
                (
                    survey.minAltitude, max(survey.maxAltitude, survey.minAltitude + 10), "m"
                )
            }
        let span = Double(max(1, end.milliseconds - start.milliseconds))
        func x(_ t: Timestamp) -> Double { left + Double(t.milliseconds - start.milliseconds) / span * (right - left) }
        func y(_ v: Double) -> Double { top + height - (v - low) / (high - low) * height }
        let name =
            panel == .speed ? (survey.speedDerived ? "Speed derived from positions" : "Speed") : "Elevation"
        svg.line(#"<g id="\#(panel.rawValue)">"#)
        svg.line(
            #"<rect x="\#(SVGText.number(left))" y="\#(SVGText.number(top))" width="\#(SVGText.number(right - left))" "#
                + #"height="\#(SVGText.number(height))" fill="\#(SVGText.colour(0xfafafa))" stroke="\#(SVGText.colour(0xcccccc))"/>"#
        )
        svg.line(#"<text x="20" y="\#(SVGText.number(top - 8))" font-weight="bold">\#(name) (\#(unit))</text>"#)
        let places = high - low < 10 ? 1 : 0
        for (value, at) in [(high, top + 4), (low, top + height)] {
            svg.line(
                #"<text x="\#(SVGText.number(left - 6))" y="\#(SVGText.number(at))" text-anchor="end" "#
                    + #"fill="\#(SVGText.colour(0x555555))">\#(DecimalText.string(value, places: places))</text>"#)
        }
        let middle = Timestamp(milliseconds: start.milliseconds + (end.milliseconds - start.milliseconds) / 2)
        let dated = end.milliseconds - start.milliseconds > 86_400_000
        // Three dated labels need about 110 px each; a narrow panel keeps the ends.
        let times = [(start, "start"), (middle, "middle"), (end, "end")].filter {
            !(dated && $0.1 == "middle" && right - left < 3 * 120)
        }
        for (t, anchor) in times {
            let iso = t.iso8601(fraction: false)
            let text = (dated ? iso.prefix(10) + " " : "") + iso.dropFirst(11).prefix(5)
            svg.line(
                #"<text x="\#(SVGText.number(x(t)))" y="\#(SVGText.number(top + height + 16))" "#
                    + #"text-anchor="\#(anchor)" fill="\#(SVGText.colour(0x555555))">\#(text)</text>"#)
        }
        var path = PathBuilder()
        for s in sessions {
            var segmenter = TrackSegmenter()
            var speeds = SpeedDeriver()
            var broken = true
            try s.forEachTrackPoint(fields: .track) { e in
                let newLine = segmenter.startsSegment(e)
                var point = e
                if newLine { point.startsSegment = true }
                let speed = speeds.speed(of: point)
                let value = panel == .speed ? speed.map { $0.metresPerSecond * 3.6 } : e.altitude
                guard let value, value.isFinite else {
                    broken = true
                    return
                }
                path.add((x(e.time), y(min(high, max(low, value)))), newLine: newLine || broken)
                broken = false
            }
        }
        if !path.isEmpty {
            let colour = panel == .speed ? "#c0392b" : "#2e7d32"
            svg.line(
                #"<path d="\#(String(decoding: path.bytes, as: UTF8.self))" fill="none" stroke="\#(colour)" "#
                    + #"stroke-width="1.5" stroke-linejoin="round"/>"#)
        } else {
            let what =
                panel == .speed
                ? "No speed: the receiver gave none, and none can be derived from the positions."
                : "No elevation in this session."
            svg.line(
                #"<text x="\#(SVGText.number((left + right) / 2))" y="\#(SVGText.number(top + height / 2 + 4))" "#
                    + #"text-anchor="middle" fill="\#(SVGText.colour(0x555555))">\#(what)</text>"#)
        }
        svg.line("</g>")
    }
}
