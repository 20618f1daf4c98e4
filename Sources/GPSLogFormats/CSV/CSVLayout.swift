// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Which column of a CSV file holds what, from its header: gpslog's own export (`session`, `kind`, `time`,
/// `latitude`, ...), GPSBabel's `unicsv` (`Latitude`, `Longitude`, `Altitude`, `Date` and `Time`, `Name`), GDAL's
/// (`X`, `Y`, `ele`, `time`, `track_fid`, `track_seg_id`), GPSLogger's (`time`, `lat`, `lon`, `elevation`,
/// `accuracy`, `bearing`, `annotation`) and the spellings people use (case, spaces, `lng`, `timestamp`, a unit in
/// the name: `speed (km/h)`).
public struct CSVLayout: Sendable {
    /// The unit of a numeric time column: Unix seconds, or milliseconds (`timestamp_ms`, `time_ms`, ...).
    public enum TimeUnit: Sendable { case seconds, milliseconds }

    /// The latitude column (0-based, as are all the columns here).
    public var latitude: Int
    /// The longitude column.
    public var longitude: Int
    /// A date-time (or Unix time) column, and GPSBabel's separate date column when there is one.
    public var time: Int
    /// How a numeric `time` is counted.
    public var timeUnit: TimeUnit = .seconds
    /// GPSBabel's separate date column (`date`, `utc_d`).
    public var date: Int?
    /// Metres (`altitude`, `ele`, `elevation`, ...).
    public var altitude: Int?
    /// The speed column, in the unit `speedFactor` converts.
    public var speed: Int?
    /// What `speed` is multiplied by to make metres per second.
    public var speedFactor = 1.0
    /// Course over ground (`course`, `bearing`, `cog`, ...; another program's `heading` too).
    public var course: Int?
    /// gpslog's `heading`, for heading-change rows (only when a course column exists as well).
    public var heading: Int?
    /// Metres (`horizontal_accuracy`, `accuracy`, `acc`, ...).
    public var horizontalAccuracy: Int?
    /// Metres (`vertical_accuracy`, `vacc`, `vac`).
    public var verticalAccuracy: Int?
    /// Satellites used (`sat`, `sats`, `satellites`, ...).
    public var satellites: Int?
    /// `hdop`.
    public var hdop: Int?
    /// `vdop`.
    public var vdop: Int?
    /// `pdop`.
    public var pdop: Int?
    /// `fix`: `2d` or `3d` (or 2, 3).
    public var fix: Int?
    /// gpslog's `instance_count`.
    public var instanceCount: Int?
    /// `name`, `label`: a mark's label.
    public var name: Int?
    /// GPSLogger's `annotation`: a point with one is a mark.
    public var annotation: Int?
    /// `address`, `addr`, `desc`, `description`.
    public var address: Int?
    /// gpslog's `session` id.
    public var session: Int?
    /// gpslog's `session_name`.
    public var sessionName: Int?
    /// gpslog's `kind`: track, mark or heading.
    public var kind: Int?
    /// GDAL's `track_fid` (also `track_id`, `track`): another value starts another session.
    public var track: Int?
    /// GDAL's `track_seg_id` (also `segment`): a change starts a segment.
    public var segment: Int?
    /// gpslog's `entry_id`: the entry's id, kept on import when free.
    public var entryID: Int?
    /// The battery column: `battery_level` (0...1), else `battery` or `batt` (percent).
    public var battery: Int?
    /// True when `battery` holds a percentage rather than a 0...1 level.
    public var batteryIsPercent = true
    /// The header is exactly gpslog's export's: a text cell that starts with `'` had one put in front by
    /// `CSVWriter` (against formula injection), which the import takes off again.
    public var isGPSLogExport = false

    /// The header's names as compared: lower case, `_` for spaces, dashes and dots, a unit in brackets kept apart.
    static func normalized(_ name: String) -> (name: String, unit: String) {
        var t = name.trimmingCharacters(in: .whitespaces).lowercased()
        t = t.trimmingCharacters(in: CharacterSet(charactersIn: "\"'\u{FEFF}"))
        var unit = ""
        if let open = t.firstIndex(where: { $0 == "(" || $0 == "[" }) {
            unit = String(t[t.index(after: open)...]).trimmingCharacters(in: CharacterSet(charactersIn: ")] "))
            t = String(t[..<open]).trimmingCharacters(in: .whitespaces)
        }
        t = String(t.map { " -.".contains($0) ? "_" : $0 })
        return (t, unit)
    }

    /// The layout of a header, or a refusal naming what is missing.
    /// - Throws: `ImportError.unsupportedFormat` naming the column that cannot be found.
    public init(header: [String], file: String) throws {
        let names = header.map(Self.normalized)
        isGPSLogExport = names.map(\.name) == CSVWriter.columns
        func column(_ candidates: [String]) -> Int? {
            for c in candidates { if let i = names.firstIndex(where: { $0.name == c }) { return i } }
            return nil
        }
        let shown = header.prefix(30).map { $0.truncated(to: 40) }.joined(separator: ", ")
        func missing(_ what: String, _ looked: [String]) -> ImportError {
            .unsupportedFormat(
                file: file,
                detail: "no \(what) column in the CSV header (looked for \(looked.joined(separator: ", ")); "
                    + "the header is: \(shown))")
        }
        let lat = ["latitude", "lat", "y", "lat_deg", "latitude_deg"]
        let lon = ["longitude", "lon", "lng", "long", "x", "lon_deg", "longitude_deg"]
        guard let la = column(lat) else { throw missing("latitude", lat) }
        guard let lo = column(lon) else { throw missing("longitude", lon) }
        latitude = la
        longitude = lo
        let times = [
            "time", "timestamp", "datetime", "date_time", "utc", "time_utc", "utc_time", "isotst", "gps_time",
            "recorded_at", "tst", "unix_time", "epoch",
        ]
        let milliseconds = ["timestamp_ms", "time_ms", "time_long", "unix_time_ms"]
        if let t = column(times) {
            time = t
        } else if let t = column(milliseconds) {
            time = t
            timeUnit = .milliseconds
        } else if let t = column(["utc_t"]) {
            time = t
        } else {
            throw missing("time", times + milliseconds + ["date and time"])
        }
        date = column(["date", "utc_d", "utc_date"])
        altitude = column(["altitude", "alt", "elevation", "ele", "height", "altitude_m", "elevation_m"])
        if let s = column(["speed", "velocity", "speed_m_s", "speed_kmh", "speed_km_h", "speed_mph", "speed_knots"]) {
            speed = s
            let label = names[s].name + " " + names[s].unit
            if label.contains("km") {
                speedFactor = 1 / 3.6
            } else if label.contains("mph") {
                speedFactor = 0.44704
            } else if label.contains("knot") || label.hasSuffix(" kn") || label.hasSuffix(" kt") {
                speedFactor = 1852.0 / 3600
            }
        }
        course = column(["course", "bearing", "cog", "direction", "track_angle"])
        heading = column(["heading"])
        if course == nil {
            course = heading  // another program's heading is the direction of travel; gpslog's is for heading rows
            heading = nil
        }
        horizontalAccuracy = column(["horizontal_accuracy", "accuracy", "acc", "hacc", "hpe", "accuracy_m"])
        verticalAccuracy = column(["vertical_accuracy", "vacc", "vac"])
        satellites = column(["sat", "sats", "satellites", "num_sats", "numsat"])
        hdop = column(["hdop"])
        vdop = column(["vdop"])
        pdop = column(["pdop"])
        fix = column(["fix"])
        instanceCount = column(["instance_count"])
        name = column(["name", "label"])
        annotation = column(["annotation", "note", "comment"])
        address = column(["address", "addr", "desc", "description"])
        session = column(["session"])
        sessionName = column(["session_name"])
        kind = column(["kind"])
        track = column(["track_fid", "track_id", "track"])
        segment = column(["track_seg_id", "segment"])
        entryID = column(["entry_id"])
        if let b = column(["battery_level"]) {
            battery = b
            batteryIsPercent = false
        } else {
            battery = column(["battery", "batt"])
        }
    }
}
