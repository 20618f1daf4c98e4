// SPDX-License-Identifier: MIT
import Foundation

/// Values read in points that gpslog has no column for (heart rate, cadence, temperature, power), counted by kind
/// so the import can say once what it dropped: TCX's `HeartRateBpm`, `Cadence` and `Watts`, a `gx:Track`'s
/// `gx:SimpleArrayData`.
struct DroppedValues {
    enum Kind: Int, CaseIterable {
        case heartRate, cadence, temperature, power

        var words: String {
            switch self {
            case .heartRate: "heart rate"
            case .cadence: "cadence"
            case .temperature: "temperature"
            case .power: "power"
            }
        }

        /// The kind a data array's name says (Google Earth's and GPSBabel's: `heartrate`, `cadence`, ...).
        init?(name: String) {
            switch name.lowercased() {
            case "heartrate", "heart_rate", "hr", "heartratebpm": self = .heartRate
            case "cadence", "cad", "runcadence": self = .cadence
            case "temperature", "temp", "atemp": self = .temperature
            case "power", "watts": self = .power
            default: return nil
            }
        }
    }

    private var counts = [Int](repeating: 0, count: Kind.allCases.count)
    /// The kind whose values are being counted (a `gx:SimpleArrayData`'s).
    private var current: Kind?

    mutating func count(_ kind: Kind) { counts[kind.rawValue] += 1 }

    /// A `gx:SimpleArrayData` starts: its `gx:value`s are counted when its name is a kind's.
    mutating func begin(_ name: UnsafeBufferPointer<UInt8>?) {
        current = name.flatMap { Kind(name: String(decoding: $0, as: UTF8.self)) }
    }

    /// One value of the array begun last.
    mutating func countValue() {
        if let current { count(current) }
    }

    /// The note for the user, when anything was dropped.
    var note: String? {
        let list = Kind.allCases.filter { counts[$0.rawValue] > 0 }.map { "\(counts[$0.rawValue]) \($0.words)" }
        guard !list.isEmpty else { return nil }
        return "dropped \(list.joined(separator: ", ")) values (gpslog has no column for them)"
    }
}
