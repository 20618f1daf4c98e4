// SPDX-License-Identifier: MIT

/// The formats gpslog writes.
public enum ExportFormat: String, CaseIterable, Sendable {
    case xml, gpx, geojson, overland, owntracks, rec, csv, kml

    /// The usual file extension.
    public var fileExtension: String {
        switch self {
        case .xml: "xml"
        case .gpx: "gpx"
        case .geojson: "geojson"
        case .overland: "json"
        case .owntracks: "jsonl"
        case .rec: "rec"
        case .csv: "csv"
        case .kml: "kml"
        }
    }

    /// The format a file name suggests, when it does.
    public static func guess(fromPath path: String) -> ExportFormat? {
        let lower = path.lowercased()
        if lower.hasSuffix(".gpx") { return .gpx }
        if lower.hasSuffix(".geojson") { return .geojson }
        if lower.hasSuffix(".kml") { return .kml }
        if lower.hasSuffix(".csv") { return .csv }
        if lower.hasSuffix(".rec") { return .rec }
        if lower.hasSuffix(".jsonl") { return .owntracks }
        if lower.hasSuffix(".xml") { return .xml }
        return nil
    }
}

/// Writes sessions in a format.
public struct Exporter {
    public var format: ExportFormat
    /// Overland batch size (50...1000).
    public var batchSize = 200
    /// Overland `device_id` and OwnTracks `user/device`.
    public var deviceID: String?

    public init(format: ExportFormat) { self.format = format }

    /// Writes to `path` ("-" for stdout). Files appear whole or not at all. Overland batches beyond the first go
    /// to numbered files (`track-0002.json`, ...) or, on stdout, one batch per line.
    /// - Returns: the paths written.
    @discardableResult
    public func export(_ sessions: [SessionExport], to path: String) throws -> [String] {
        if format == .overland {
            var paths: [String] = []
            let writer = OverlandWriter(batchSize: batchSize, deviceID: deviceID)
            let stdout = path == "-" ? try OutputFile(path: "-") : nil
            try writer.write(sessions) { index in
                if let stdout { return stdout }
                let p = Exporter.numbered(path, index)
                paths.append(p)
                return try OutputFile(path: p)
            }
            return path == "-" ? ["-"] : paths
        }
        let out = try OutputFile(path: path)
        switch format {
        case .xml: try SessionXMLWriter().write(sessions, to: out)
        case .gpx: try GPXWriter().write(sessions, to: out)
        case .geojson: try GeoJSONWriter().write(sessions, to: out)
        case .owntracks: try OwnTracksWriter(layout: .jsonLines, userDevice: deviceID).write(sessions, to: out)
        case .rec: try OwnTracksWriter(layout: .recorder, userDevice: deviceID).write(sessions, to: out)
        case .csv: try CSVWriter().write(sessions, to: out)
        case .kml: try KMLWriter().write(sessions, to: out)
        case .overland: break
        }
        try out.commit()
        return [path]
    }

    /// `track.json` for the first batch, then `track-0002.json`, `track-0003.json`, ...
    static func numbered(_ path: String, _ index: Int) -> String {
        guard index > 0 else { return path }
        let n = String(index + 1)
        let suffix = "-" + String(repeating: "0", count: max(0, 4 - n.count)) + n
        if let dot = path.lastIndex(of: "."), !path[dot...].contains("/") {
            return String(path[..<dot]) + suffix + String(path[dot...])
        }
        return path + suffix
    }
}
