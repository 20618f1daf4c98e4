// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogStore
import GPSLogSystem

/// The formats `import` and `convert` read, told apart by content (not by file name).
public enum ImportFormat: String, CaseIterable, Sendable {
    case nmea, gpx, xml, geojson, csv, overland, owntracks, gpslogdb, google
    case kml, kmz, tcx

    /// Looks at the first 4 KiB of a file (UTF-8, or UTF-16 with a byte order mark or an XML declaration).
    public static func detect(path: String) throws -> ImportFormat {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ImportError.unreadable(file: path, reason: SystemCallError(code: errno).reason)
        }
        defer { try? handle.close() }
        let head = handle.readData(ofLength: 4096)
        if head.starts(with: Array("SQLite format 3\0".utf8)) { return .gpslogdb }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return .kmz }  // a zip: its .kml is read
        let text = Self.text(of: head)
        let trimmed = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        if trimmed.hasPrefix("<") {
            if text.contains("urn:gpslog:sessions") { return .xml }
            if let format = xmlFormat(root: text) { return format }
            if text.contains("<gpx") { return .gpx }
            throw ImportError.unsupportedFormat(
                file: path, detail: "XML that is neither GPX, KML, TCX nor a gpslog session export")
        }
        if trimmed.hasPrefix("{") {
            // GeoJSON first: ocat's and Dawarich's features may carry OwnTracks' `_type` among their properties.
            if text.contains("\"FeatureCollection\"") { return .geojson }
            if isGoogle(text) { return .google }
            if isRecorderOutput(text) { return .owntracks }
            if text.contains("\"locations\"") { return .overland }
            if text.contains("\"_type\"") { return .owntracks }
            // GPSBabel sorts members: "features" first, "type" last, after megabytes of coordinates.
            if ["\"features\"", "\"geometry\"", "\"coordinates\"", "\"Feature\""].contains(where: text.contains) {
                return .geojson
            }
            throw ImportError.unsupportedFormat(
                file: path,
                detail:
                    "JSON that is neither GeoJSON, an Overland batch, OwnTracks messages nor Google location history")
        }
        // Google's iOS Timeline export: an array of segments.
        if trimmed.hasPrefix("["), text.contains("\"startTime\""),
            ["\"timelinePath\"", "\"visit\"", "\"activity\""].contains(where: text.contains)
        {
            return .google
        }
        // OwnTracks Recorder .rec: "2024-03-01T09:03:09Z<TAB>*...<TAB>{...}" (older files pad with spaces).
        if let first = trimmed.split(separator: "\n").first, first.count > 21, first.contains("{"),
            Timestamp(iso8601: first.prefix(20)) != nil
        {
            return .owntracks
        }
        if trimmed.hasPrefix("$") || trimmed.hasPrefix("!") || trimmed.hasPrefix("#") { return .nmea }
        if isRecorderCSV(trimmed) {
            throw ImportError.unsupportedFormat(
                file: path,
                detail:
                    "the OwnTracks Recorder's `ocat --format csv` output, whose header names the first location's fields only while later rows may have more, so its columns cannot be told apart; write it with `ocat --format json` (or `--format raw`, the .rec lines) and import that"
            )
        }
        if try isCSV(header: trimmed, path: path) { return .csv }
        throw ImportError.unsupportedFormat(
            file: path,
            detail:
                "not a format gpslog reads (NMEA 0183, GPX 1.0/1.1, KML, KMZ, TCX, gpslog XML, GeoJSON, CSV with latitude, longitude and time columns, Overland batch JSON, OwnTracks JSON lines, .rec or the Recorder's JSON, Google location history JSON)"
        )
    }

    /// The OwnTracks Recorder's answers of locations (ocat.c, http.c): `{"count":N,"locations":[...]}` from `ocat`,
    /// `{"count":N,"data":[...]}` from its API, or a `{"locations":[...]}` of OwnTracks messages: an Overland batch's
    /// locations are GeoJSON features instead.
    static func isRecorderOutput(_ head: String) -> Bool {
        guard OwnTracksRecorderOutput.isDocument(Data(head.utf8)) else { return false }
        let geoJSON = ["\"Feature\"", "\"geometry\"", "\"properties\""].contains(where: head.contains)
        if head.contains("\"locations\"") {
            return !geoJSON && (head.contains("\"_type\"") || head.contains("\"tst\""))
        }
        return head.contains("\"data\"") && (head.contains("\"_type\"") || head.contains("\"tst\""))
    }

    /// `ocat --format csv`: a header of the first location's keys (ocat.c's csv_output), with OwnTracks' `_type`,
    /// `tst` and the Recorder's own `isotst` or `ghash`.
    static func isRecorderCSV(_ text: Substring) -> Bool {
        guard let first = text.split(whereSeparator: \.isNewline).first else { return false }
        let names = Set(first.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        return names.isSuperset(of: ["_type", "tst", "lat", "lon"]) && !names.isDisjoint(with: ["isotst", "ghash"])
    }

    /// Google location history: Records.json's `locations` of `latitudeE7` (an Overland batch's are GeoJSON
    /// features), a Semantic Location History month's `timelineObjects`, the Android Timeline export's
    /// `semanticSegments` or `rawSignals`.
    static func isGoogle(_ head: String) -> Bool {
        (head.contains("\"locations\"") && head.contains("\"latitudeE7\"")) || head.contains("\"timelineObjects\"")
            || head.contains("\"semanticSegments\"") || head.contains("\"rawSignals\"")
    }

    /// The head of a file as text: UTF-16 when it starts with a byte order mark or `<?` in UTF-16, else UTF-8.
    static func text(of head: Data) -> String {
        let b = [UInt8](head.prefix(4))
        let littleEndian = b.starts(with: [0xFF, 0xFE]) || b.starts(with: [0x3C, 0x00, 0x3F, 0x00])
        let bigEndian = b.starts(with: [0xFE, 0xFF]) || b.starts(with: [0x00, 0x3C, 0x00, 0x3F])
        guard littleEndian || bigEndian else { return String(decoding: head, as: UTF8.self) }
        let bytes = [UInt8](head)
        let units = stride(from: 0, to: bytes.count - 1, by: 2).map { i in
            littleEndian ? UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8 : UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// A first line that is a CSV header: split by `,`, `;` or a tab into two or more names. True when it has a
    /// latitude, a longitude and a time column; the refusal naming the missing one when it has some of them, or the
    /// file is named `.csv`, `.tsv` or `.txt`; false otherwise.
    private static func isCSV(header text: Substring, path: String) throws -> Bool {
        guard let first = text.split(whereSeparator: \.isNewline).first else { return false }
        let delimiter = [",", ";", "\t"].max { first.split(separator: $0).count < first.split(separator: $1).count }!
        let names = first.split(separator: delimiter, omittingEmptySubsequences: false).map {
            String($0).trimmingCharacters(in: CharacterSet(charactersIn: "\" \r"))
        }
        guard names.count >= 2 else { return false }
        do {
            _ = try CSVLayout(header: names, file: path)
            return true
        } catch {
            let normalized = names.map { $0.lowercased() }
            let hint = ["lat", "latitude", "lon", "lng", "longitude", "time", "timestamp"].contains {
                normalized.contains($0)
            }
            let ext = (path as NSString).pathExtension.lowercased()
            if hint || ["csv", "tsv", "txt"].contains(ext) { throw error }
            return false
        }
    }
}
