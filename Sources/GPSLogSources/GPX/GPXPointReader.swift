// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogXML

/// Streams the track points of a GPX 1.0 or 1.1 file as fixes (for `replay:`): position, `ele`, `time`, `sat`,
/// `hdop`/`vdop`/`pdop`, and speed and course from GPX 1.0 or Garmin's TrackPointExtension. Points without a
/// time cannot be replayed and are skipped.
public struct GPXPointReader {
    public let path: String

    public init(path: String) { self.path = path }

    /// Calls `body` for each timed track point, in file order.
    public func read(_ body: (Fix) throws -> Void) throws {
        let reader = try XMLStreamReader(path: path)
        var current: Fix?
        var field: String?
        while try reader.read() {
            switch reader.nodeType {
            case .element:
                let name = reader.localName
                if name == "trkpt" {
                    guard let lat = reader.attribute("lat").flatMap(Double.init), let lon = reader.attribute("lon").flatMap(Double.init) else {
                        throw XMLError(file: path, line: reader.line, column: 0, message: "trkpt without a valid lat and lon")
                    }
                    current = Fix(time: Timestamp(milliseconds: Int64.min), latitude: lat, longitude: lon)
                    if reader.isEmptyElement { current = nil }
                } else if current != nil {
                    field = name
                }
            case .text, .significantWhitespace:
                guard var fix = current, let field, let text = reader.value else { continue }
                let value = text.trimmedWhitespace
                switch field {
                case "ele": fix.altitude = Double(value)
                case "time": if let t = Timestamp(iso8601: value) { fix.time = t }
                case "sat": fix.satellites = Int(value)
                case "hdop": fix.hdop = Double(value)
                case "vdop": fix.vdop = Double(value)
                case "pdop": fix.pdop = Double(value)
                case "speed": fix.speed = Double(value)
                case "course": fix.course = Double(value)
                default: break
                }
                current = fix
            case .endElement:
                if reader.localName == "trkpt", let fix = current {
                    if fix.time.milliseconds != Int64.min { try body(fix) }
                    current = nil
                }
                field = nil
            default:
                continue
            }
        }
    }
}
