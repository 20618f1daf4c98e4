// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// `gpslog plot`: the track as an SVG picture, with no browser and no map tiles: the track in a local projection
/// (one line per segment), a scale bar, a north arrow, start and end, the marks with their labels, and optional
/// speed and elevation panels against time. Written by hand: SVG is text, and what a charting library would add
/// (axes, a legend) is a few lines here, while its output would not be byte-for-byte the same across versions,
/// which the golden file in `Exports/` needs. Two reads of the track, flat memory: the first finds the extent,
/// the second draws, keeping a point only when it moves half a pixel.
public struct SVGPlotWriter: TrackWriter {
    /// A chart under the map, against time.
    public enum Panel: String, CaseIterable, Sendable {
        case speed, elevation
    }

    /// The charts drawn under the map, in order.
    public var panels: [Panel]
    /// The picture's width in pixels; the map is at most as high as it is wide.
    public var width: Int

    /// A plot 800 pixels wide with no charts, unless told otherwise.
    public init(panels: [Panel] = [], width: Int = 800) {
        self.panels = panels
        self.width = width
    }

    static let trackColours = ["#c0392b", "#1565c0", "#6a1b9a", "#ef6c00", "#00838f"]
    static let panelHeight = 130.0

    /// Writes one SVG to output 0: the extent is found in a first read of the tracks, the picture drawn in a second.
    public func write(_ sessions: [SessionExport], to outputs: TrackOutputs) throws {
        var survey = PlotSurvey()
        for s in sessions {
            var segmenter = TrackSegmenter()
            try s.forEachTrackPoint(fields: .track) { e in survey.add(e, startsSegment: segmenter.startsSegment(e)) }
            try s.forEachMark { survey.addMark($0) }
            survey.endSession()
        }
        guard survey.points + survey.marks.count > 0 else {
            throw ExportError.nothingToExport("the session has no track point and no mark: nothing to plot.")
        }
        let w = Double(width)
        let frame = PlotFrame(survey: survey, width: w, top: 64, maxMapHeight: w)
        let shown = panels.filter { $0 != .elevation || survey.hasAltitude }
        let height = frame.top + frame.mapHeight + 56 + Double(shown.count) * (Self.panelHeight + 48)
        var svg = SVGText()
        svg.line(
            #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(width)" height="\#(Int(height.rounded(.up)))" "#
                + #"viewBox="0 0 \#(width) \#(Int(height.rounded(.up)))" font-family="sans-serif" font-size="12">"#)
        let title = sessions.map(\.session.name).joined(separator: ", ")
        svg.line("<title>\(title.xmlEscaped)</title>")
        svg.line(#"<rect width="100%" height="100%" fill="\#(SVGText.colour(0xffffff))"/>"#)
        svg.line(#"<text x="20" y="28" font-size="18" font-weight="bold">\#(title.xmlEscaped)</text>"#)
        svg.line(
            #"<text x="20" y="48" fill="\#(SVGText.colour(0x555555))">\#(Self.subtitle(survey).xmlEscaped)</text>"#)
        svg.line(
            #"<rect x="\#(frame.margin)" y="\#(frame.top)" width="\#(w - 2 * frame.margin)" "#
                + #"height="\#(SVGText.number(frame.mapHeight))" fill="\#(SVGText.colour(0xf4f6f4))" stroke="\#(SVGText.colour(0xcccccc))"/>"#
        )
        for (index, s) in sessions.enumerated() {
            try drawTrack(s, colour: Self.trackColours[index % Self.trackColours.count], frame: frame, into: &svg)
        }
        let offMap = drawMarks(survey.marks, frame: frame, into: &svg)
        drawScaleAndNorth(frame, into: &svg)
        drawLegend(survey, offMap: offMap, frame: frame, into: &svg)
        var y = frame.top + frame.mapHeight + 56 + 26
        for panel in shown {
            try drawPanel(panel, sessions: sessions, survey: survey, top: y, into: &svg)
            y += Self.panelHeight + 48
        }
        svg.line("</svg>")
        let out = try outputs.open(0)
        try out.write(svg.bytes)
        try out.commit()
    }

    /// `2018-08-20 09:47 to 09:50 UTC, 427 m, 157 points`.
    static func subtitle(_ s: PlotSurvey) -> String {
        let marks = s.marks.count == 1 ? "1 mark" : "\(s.marks.count) marks"
        guard let start = s.start, let end = s.end else { return marks }
        let from = start.iso8601(fraction: false)
        let to = end.iso8601(fraction: false)
        let sameDay = from.prefix(10) == to.prefix(10)
        let range =
            "\(from.prefix(10)) \(from.dropFirst(11).prefix(5)) to "
            + (sameDay ? "" : "\(to.prefix(10)) ") + "\(to.dropFirst(11).prefix(5)) UTC"
        return "\(range), \(PlotFrame.lengthText(s.distance.rounded())), \(s.points) points, \(marks)"
    }

    private func drawTrack(_ s: SessionExport, colour: String, frame: PlotFrame, into svg: inout SVGText) throws {
        var path = PathBuilder()
        var segmenter = TrackSegmenter()
        var first: Entry?
        var last: Entry?
        try s.forEachTrackPoint(fields: .track) { e in
            path.add(frame.point(latitude: e.latitude, longitude: e.longitude), newLine: segmenter.startsSegment(e))
            if first == nil { first = e }
            last = e
        }
        guard let first, let last else { return }
        svg.line(
            #"<path d="\#(String(decoding: path.bytes, as: UTF8.self))" fill="none" stroke="\#(colour)" "#
                + #"stroke-width="2.5" stroke-linejoin="round" stroke-linecap="round"/>"#)
        let a = frame.point(latitude: first.latitude, longitude: first.longitude)
        let b = frame.point(latitude: last.latitude, longitude: last.longitude)
        svg.line(
            #"<circle cx="\#(SVGText.number(a.x))" cy="\#(SVGText.number(a.y))" r="6" fill="\#(SVGText.colour(0x2e7d32))" "#
                + #"stroke="\#(SVGText.colour(0xffffff))" stroke-width="2"><title>start \#(first.time.iso8601())</title></circle>"#
        )
        svg.line(
            #"<rect x="\#(SVGText.number(b.x - 6))" y="\#(SVGText.number(b.y - 6))" width="12" height="12" "#
                + #"fill="\#(SVGText.colour(0xb71c1c))" stroke="\#(SVGText.colour(0xffffff))" stroke-width="2"><title>end \#(last.time.iso8601())</title></rect>"#
        )
    }

    /// Draws the marks; true when one was off the map (an arrow at its edge).
    private func drawMarks(_ marks: [Entry], frame: PlotFrame, into svg: inout SVGText) -> Bool {
        var offMap = false
        for (index, m) in marks.enumerated() {
            let p = frame.point(latitude: m.latitude, longitude: m.longitude)
            let label = m.label.map { $0.count > 40 ? String($0.prefix(39)) + "…" : $0 } ?? ""
            let tooltip = ([label, m.time.iso8601(), m.address ?? ""].filter { !$0.isEmpty }).joined(separator: ", ")
            guard frame.contains(p) else {
                drawFarMark(p, label: label.isEmpty ? "mark" : label, tooltip: tooltip, frame: frame, into: &svg)
                offMap = true
                continue
            }
            svg.line(
                #"<circle cx="\#(SVGText.number(p.x))" cy="\#(SVGText.number(p.y))" r="4" fill="\#(SVGText.colour(0x1565c0))" "#
                    + #"stroke="\#(SVGText.colour(0xffffff))" stroke-width="1.5"><title>\#(tooltip.xmlEscaped)</title></circle>"#
            )
            if !label.isEmpty && index < PlotSurvey.maxLabels {
                svg.line(
                    #"<text x="\#(SVGText.number(p.x + 7))" y="\#(SVGText.number(p.y - 7))" fill="\#(SVGText.colour(0x0d3c73))" "#
                        + #"stroke="\#(SVGText.colour(0xffffff))" stroke-width="3" paint-order="stroke">\#(label.xmlEscaped)</text>"#
                )
            }
        }
        return offMap
    }

    /// A mark outside the map's view: an arrow at the frame's edge pointing its way, with its name beside it.
    private func drawFarMark(
        _ p: (x: Double, y: Double), label: String, tooltip: String, frame: PlotFrame, into svg: inout SVGText
    ) {
        let edge = frame.edge(towards: p, inset: 10)
        let degrees = -edge.angle * 180 / .pi
        let (cosine, sine) = (cos(edge.angle), sin(edge.angle))
        // The name on the map's side of the arrow: left of an arrow at the right edge, under one at the top...
        let anchor = cosine > 0.4 ? "end" : cosine < -0.4 ? "start" : "middle"
        let tx = edge.x - cosine * 16
        let ty = edge.y + sine * 16 + (sine < -0.4 ? 0 : 4)
        svg.line(#"<g class="far-mark"><title>\#(tooltip.xmlEscaped), off the map</title>"#)
        svg.line(
            #"<path d="M0 0l-14 -7l0 14z" transform="translate(\#(SVGText.number(edge.x)) \#(SVGText.number(edge.y))) "#
                + #"rotate(\#(SVGText.number(degrees)))" fill="\#(SVGText.colour(0x1565c0))" stroke="\#(SVGText.colour(0xffffff))"/>"#
        )
        svg.line(
            #"<text x="\#(SVGText.number(tx))" y="\#(SVGText.number(ty))" text-anchor="\#(anchor)" "#
                + #"fill="\#(SVGText.colour(0x0d3c73))" stroke="\#(SVGText.colour(0xffffff))" stroke-width="3" "#
                + #"paint-order="stroke">\#(label.xmlEscaped)</text>"#)
        svg.line("</g>")
    }

    /// What the symbols mean, in a row under the scale bar: the track, start, end, marks and marks off the map
    /// (those the picture has).
    private func drawLegend(_ survey: PlotSurvey, offMap: Bool, frame: PlotFrame, into svg: inout SVGText) {
        let y = frame.top + frame.mapHeight + 44
        var x = frame.margin
        var items: [(symbol: String, text: String)] = []
        func at(_ v: Double) -> String { SVGText.number(v) }
        if survey.points > 0 {
            items.append(
                (
                    #"<line x1="\#(at(x))" y1="\#(at(y - 4))" x2="\#(at(x + 18))" y2="\#(at(y - 4))" "#
                        + #"stroke="\#(Self.trackColours[0])" stroke-width="2.5"/>"#, "track"
                ))
            items.append(
                (
                    #"<circle cx="\#(at(x + 6))" cy="\#(at(y - 4))" r="6" fill="\#(SVGText.colour(0x2e7d32))"/>"#,
                    "start"
                ))
            items.append(
                (
                    #"<rect x="\#(at(x))" y="\#(at(y - 10))" width="12" height="12" fill="\#(SVGText.colour(0xb71c1c))"/>"#,
                    "end"
                ))
        }
        if !survey.marks.isEmpty {
            items.append(
                (#"<circle cx="\#(at(x + 6))" cy="\#(at(y - 4))" r="4" fill="\#(SVGText.colour(0x1565c0))"/>"#, "mark"))
        }
        if offMap {
            items.append(
                (
                    #"<path d="M\#(at(x + 14)) \#(at(y - 4))l-14 -7l0 14z" fill="\#(SVGText.colour(0x1565c0))"/>"#,
                    "mark off the map"
                ))
        }
        svg.line(#"<g id="legend" fill="\#(SVGText.colour(0x333333))">"#)
        for (symbol, text) in items {
            // Each symbol is written at the row's start and moved to its place.
            svg.line(#"<g transform="translate(\#(at(x - frame.margin)) 0)">\#(symbol)"#)
            svg.line(#"<text x="\#(at(frame.margin + 22))" y="\#(at(y))">\#(text)</text></g>"#)
            x += 22 + Double(text.count) * 7 + 16
        }
        svg.line("</g>")
    }

    private func drawScaleAndNorth(_ frame: PlotFrame, into svg: inout SVGText) {
        let metres = frame.scaleBarMetres
        let length = metres * frame.scale
        // Under the map's frame, left: the track never hides it.
        let x = frame.margin
        let y = frame.top + frame.mapHeight + 22
        svg.line(
            #"<path d="M\#(SVGText.number(x)) \#(SVGText.number(y - 5))V\#(SVGText.number(y))"#
                + #"H\#(SVGText.number(x + length))V\#(SVGText.number(y - 5))" fill="none" stroke="\#(SVGText.colour(0x222222))" "#
                + #"stroke-width="2"/>"#)
        svg.line(
            #"<text x="\#(SVGText.number(x + length + 8))" y="\#(SVGText.number(y))">"#
                + #"\#(PlotFrame.lengthText(metres))</text>"#)
        // North is up in this projection: an arrow beside the title says so.
        let nx = frame.width - frame.margin - 10
        let ny = 10.0
        svg.line(
            #"<path d="M\#(SVGText.number(nx)) \#(SVGText.number(ny))l8 22l-8 -6l-8 6z" fill="\#(SVGText.colour(0x222222))"/>"#
        )
        svg.line(
            #"<text x="\#(SVGText.number(nx))" y="\#(SVGText.number(ny + 38))" text-anchor="middle" "#
                + #"font-weight="bold">N</text>"#)
    }
}

/// An SVG document being written, line by line.
struct SVGText {
    private(set) var bytes: [UInt8] = []

    mutating func line(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// `#rrggbb` (kept out of the raw string literals, where `"#` would end them).
    static func colour(_ rgb: Int) -> String {
        let hex = String(rgb, radix: 16)
        return "#" + String(repeating: "0", count: max(0, 6 - hex.count)) + hex
    }

    /// A coordinate with one decimal: the same text for the same session on every machine.
    static func number(_ v: Double) -> String { DecimalText.string(v, places: 1) }
}
