// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Human-readable numbers for listings.
enum Format {
    /// "850 m", "12.35 km".
    static func distance(_ metres: Double) -> String {
        metres < 1000 ? String(format: "%.0f m", metres) : String(format: "%.2f km", metres / 1000)
    }

    /// "2 h 05 min", "3 min 20 s", "42 s".
    static func duration(milliseconds: Int64) -> String {
        let total = Int((Double(milliseconds) / 1000).rounded())
        let h = total / 3600
        let m = (total / 60) % 60
        let s = total % 60
        if h > 0 { return String(format: "%d h %02d min", h, m) }
        if m > 0 { return String(format: "%d min %02d s", m, s) }
        return "\(s) s"
    }

    /// "850 m²", "12.35 km²".
    static func area(_ squareMetres: Double) -> String {
        squareMetres < 1_000_000
            ? String(format: "%.0f m²", squareMetres) : String(format: "%.2f km²", squareMetres / 1_000_000)
    }

    /// "5.6 m/s (20.2 km/h, 10.9 kn)".
    static func speed(_ mps: Double) -> String {
        String(format: "%.1f m/s (%.1f km/h, %.1f kn)", mps, mps * 3.6, mps * 3600 / 1852)
    }

    /// UTC time for listings: "2018-08-20 09:47:36Z".
    static func time(_ t: Timestamp) -> String {
        t.iso8601(fraction: false).replacingOccurrences(of: "T", with: " ")
    }

    /// "52.850157° N, 5.313620° E".
    static func position(latitude: Double, longitude: Double) -> String {
        String(
            format: "%.6f° %@, %.6f° %@", abs(latitude), latitude < 0 ? "S" : "N", abs(longitude),
            longitude < 0 ? "W" : "E")
    }

    /// The widest a table cell gets: a longer one is cut with "…", so one long name cannot pad every row.
    static let maxCellWidth = 40

    /// One table cell: escaped (see `visible`) and at most `maxCellWidth` characters.
    static func cell(_ text: String) -> String {
        let safe = text.visible
        return safe.count <= maxCellWidth ? safe : String(safe.prefix(maxCellWidth - 1)) + "…"
    }

    /// Left-aligned text columns, numbers right-aligned when `rightAligned` says so. Cells are made safe with `cell`.
    static func table(header: [String], rows: [[String]], rightAligned: Set<Int> = []) -> String {
        let rows = rows.map { $0.map(cell) }
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                return rightAligned.contains(i) ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}

/// Writes JSON with sorted keys, so output is stable for scripts and tests.
enum JSONOutput {
    static func render(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
