// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// Draws a session (or, with `--all`, every session) as an SVG (or PNG) picture.
    struct Plot: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw a session as a picture: the track, scale bar, north arrow, marks, speed and elevation.",
            discussion: """
                -o track.svg writes SVG; -o track.png converts it with rsvg-convert (Debian's librsvg2-bin). The \
                same session gives the same file, byte for byte. No map tiles: the track is drawn in a local \
                projection on a plain background. --all draws every session's track on one picture (the \
                history map's picture; --from and --to keep a time range of it, --mode the sessions of one trip \
                mode).
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The session: a name, id or unique id prefix.") var session: String?
        @Flag(help: "Draw every session's track (not with a session).") var all = false
        // Optional to the parser so that a config file may give it; `validate()` requires it.
        @Option(name: [.short, .long], help: "Output file (required): .svg, or .png through rsvg-convert.")
        var output: String?
        @Option(help: ArgumentHelp("Charts under the map, comma-separated.", valueName: "speed,elevation"))
        var panels: String = ""
        @Option(help: "Width in pixels (200 to 4000).") var width: Int = 800
        @Option(help: "Only entries at or after this time (ISO 8601).") var from: String?
        @Option(help: "Only entries at or before this time (ISO 8601).") var to: String?
        @Option(help: "With --all, only sessions of this trip mode (walk, bicycle, car, ...; none: without one).")
        var mode: String?

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            let output = try OptionChecks.required(self.output, "--output <output>")
            if all == (session != nil) {
                throw ValidationError("Give a session to draw, or --all for every session (not both).")
            }
            _ = try panelList()
            if !(200...4000).contains(width) { throw ValidationError("--width must be from 200 to 4000.") }
            if !output.lowercased().hasSuffix(".svg") && !output.lowercased().hasSuffix(".png") {
                throw ValidationError("-o must name a .svg or .png file.")
            }
            if let mode {
                guard all else { throw ValidationError("--mode goes with --all (a session has one mode).") }
                guard HistoryFilter.modes.contains(mode) else {
                    throw ValidationError("--mode must be one of \(HistoryFilter.modes.joined(separator: ", ")).")
                }
            }
            for (name, value) in [("--from", from), ("--to", to)] where value.map({ Timestamp(iso8601: $0) }) == nil {
                if value != nil { throw ValidationError("\(name) must be ISO 8601, e.g. 2026-05-01T08:00:00Z.") }
            }
        }

        func panelList() throws -> [SVGPlotWriter.Panel] {
            try panels.split(separator: ",").map { name in
                guard let panel = SVGPlotWriter.Panel(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                    throw ValidationError("--panels takes speed and elevation, comma-separated; not '\(name)'.")
                }
                return panel
            }
        }

        func run() throws {
            let output = try OptionChecks.required(self.output, "--output <output>")
            let store = try global.openStore()
            defer { store.close() }
            let chosen =
                try session.map { [try store.resolveSession($0)] }
                ?? store.sessions().filter { s in mode.map { (s.mode?.rawValue ?? "none") == $0 } ?? true }
            let exports = try chosen.map {
                try SessionExport(
                    store: store, session: $0, from: from.flatMap { Timestamp(iso8601: $0) },
                    to: to.flatMap { Timestamp(iso8601: $0) }, simplify: nil)
            }
            let writer = SVGPlotWriter(panels: try panelList(), width: width)
            if output.lowercased().hasSuffix(".png") {
                try PNGConversion.write(output) { svg in try writer.write(exports, to: TrackOutputs(path: svg)) }
            } else {
                try writer.write(exports, to: TrackOutputs(path: output))
            }
            print("Wrote \(output).")
        }
    }
}

/// PNG through Debian's `rsvg-convert`: the SVG goes to a private file beside the output, is converted into another,
/// and that one takes the output's name whole (0600), or nothing is left.
enum PNGConversion {
    static var converter: String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/rsvg-convert" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func write(_ output: String, svg: (String) throws -> Void) throws {
        guard let converter else {
            throw CommandError.file(
                path: output,
                reason: "writing PNG needs rsvg-convert (sudo apt-get install librsvg2-bin); or write -o a .svg file")
        }
        // A private folder (mkdtemp, 0700) beside the output, so that no one can put a link where the files go.
        let folder = (output as NSString).deletingLastPathComponent
        var template = Array(((folder.isEmpty ? "." : folder) + "/.gpslog-plot-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CommandError.file(
                path: output, reason: "cannot make a private folder beside it: \(String(cString: strerror(errno)))")
        }
        let scratch = String(cString: made)
        let (svgPath, pngPath) = (scratch + "/plot.svg", scratch + "/plot.png")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try svg(svgPath)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: converter)
        p.arguments = ["--format", "png", "--output", pngPath, svgPath]
        let errors = Pipe()
        p.standardError = errors
        try p.run()
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0, chmod(pngPath, 0o600) == 0, rename(pngPath, output) == 0 else {
            let reason = String(decoding: said, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw CommandError.file(path: output, reason: "rsvg-convert failed: \(reason.visible)")
        }
    }
}
