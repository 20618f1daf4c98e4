// SPDX-License-Identifier: MIT
import GPSLogModel

/// The altitudes and speeds an import keeps. A value outside is no measurement (`1e300` in a TCX `AltitudeMeters`
/// would be stored, then exported cut to `92000000000000000`): it is dropped, and counted for a note.
enum PlausibleValues {
    /// Metres: from below the deepest ocean trench (-10,994 m) to 100 km, the edge of space (balloons reach 40 km).
    static let altitude: ClosedRange<Double> = -12_000...100_000
    /// Metres per second: from 0 to 2,000 (7,200 km/h, past any aircraft's; a plane's 250 m/s is well inside).
    static let speed: ClosedRange<Double> = 0...2_000
}

/// Values dropped for being out of range, counted so that the import says once how many, and where the first was.
struct OutOfRangeValues {
    private(set) var count = 0
    private var first: (field: String, value: String, line: Int)?

    /// Keeps `value` when `range` holds it; otherwise counts it (with the line and the text as the file has it).
    mutating func kept(
        _ value: Double?, in range: ClosedRange<Double>, field: String, text: @autoclosure () -> String, line: Int
    ) -> Double? {
        guard let value, !range.contains(value) else { return value }
        count += 1
        if first == nil { first = (field, text(), line) }
        return nil
    }

    /// The note for the user, when anything was dropped: `dropped 2 out-of-range values (the first: AltitudeMeters
    /// '1e300' on line 12; ...)`.
    var note: String? {
        guard let first else { return nil }
        return
            "dropped \(count) out-of-range value(s) (the first: \(first.field) '\(first.value.truncated(to: 40).visible)'"
            + " on line \(first.line)); altitudes are kept from \(Int(PlausibleValues.altitude.lowerBound)) to "
            + "\(Int(PlausibleValues.altitude.upperBound)) m, speeds up to \(Int(PlausibleValues.speed.upperBound)) m/s"
    }
}
