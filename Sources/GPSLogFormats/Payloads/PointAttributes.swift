// SPDX-License-Identifier: MIT
import GPSLogModel

/// A point's attributes (`Entry.attributes`: the keys a phone app sent that gpslog has no field for, as text), and
/// their bounds: one definition for every way in, so what `serve` keeps from a Traccar client is what a GeoJSON
/// import (`coordAttributes`) keeps, and an export of one imports whole.
public enum PointAttributes {
    /// The most keys a point keeps (Traccar Client sends none to five, OsmAnd none).
    public static let maxCount = 32
    /// The longest key kept, in bytes.
    public static let maxKeyLength = 64
    /// The longest value kept, in bytes (a device id, a date; anything longer is not from a phone app).
    public static let maxValueLength = 256

    /// Keeps one key within the bounds; a key over one is left out and said in `leftOut` (why, its name cut and
    /// escaped): refused whole, the point would block a client that resends its positions in order behind it.
    public static func keep(
        _ key: String, _ value: String, in attributes: inout [String: String], leftOut: inout [String]
    ) {
        let shown = key.truncated(to: 40).visible
        if key.isEmpty || key.utf8.count > maxKeyLength {
            leftOut.append("'\(shown)' (a key is 1 to \(maxKeyLength) bytes)")
        } else if value.utf8.count > maxValueLength {
            leftOut.append("'\(shown)' (a value is at most \(maxValueLength) bytes)")
        } else if attributes[key] == nil && attributes.count >= maxCount {
            leftOut.append("'\(shown)' (at most \(maxCount) keys besides the known ones)")
        } else {
            attributes[key] = value
        }
    }

    /// A JSON number kept as text: a whole number without a fraction (`3`, not `3.0`), else Swift's shortest form.
    public static func text(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}
