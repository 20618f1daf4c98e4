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

extension ExportFormat {
    /// The writer of this format. `batchSize`: Overland's locations per batch; `deviceID`: Overland's `device_id`
    /// and OwnTracks' `user/device`.
    public func writer(batchSize: Int = 200, deviceID: String? = nil) -> any TrackWriter {
        switch self {
        case .xml: SessionXMLWriter()
        case .gpx: GPXWriter()
        case .geojson: GeoJSONWriter()
        case .overland: OverlandWriter(batchSize: batchSize, deviceID: deviceID)
        case .owntracks: OwnTracksWriter(layout: .jsonLines, userDevice: deviceID)
        case .rec: OwnTracksWriter(layout: .recorder, userDevice: deviceID)
        case .csv: CSVWriter()
        case .kml: KMLWriter()
        }
    }
}
