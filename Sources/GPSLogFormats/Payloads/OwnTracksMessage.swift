// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// OwnTracks messages: what `import` reads line by line and `serve` from an HTTP-mode POST.
public enum OwnTracksMessage {
    /// The location in an OwnTracks message, nil for other `_type`s (transition, waypoint, lwt...). `vel` is
    /// km/h, `tst` Unix seconds; `t: u` marks a user-triggered report as a mark. A bad value throws
    /// `ImportError.invalidValue` naming its field.
    public static func location(_ object: [String: Any], source: String, line: Int) throws -> Entry? {
        guard object["_type"] as? String == "location" else { return nil }
        guard let lat = JSONValue.double(object["lat"]), abs(lat) <= 90 else {
            throw ImportError.invalidValue(
                file: source, line: line, field: "lat", value: "\(object["lat"] ?? "missing")")
        }
        guard let lon = JSONValue.double(object["lon"]), abs(lon) <= 180 else {
            throw ImportError.invalidValue(
                file: source, line: line, field: "lon", value: "\(object["lon"] ?? "missing")")
        }
        guard let tst = JSONValue.double(object["tst"]), tst >= 0, tst < 1e11 else {
            throw ImportError.invalidValue(
                file: source, line: line, field: "tst", value: "\(object["tst"] ?? "missing")")
        }
        let time = Timestamp(milliseconds: Int64(tst) * 1000)
        var e = Entry(id: "", latitude: lat, longitude: lon, time: time)
        e.horizontalAccuracy = JSONValue.double(object["acc"]).flatMap { $0 > 0 ? $0 : nil }
        e.altitude = JSONValue.double(object["alt"])
        e.verticalAccuracy = JSONValue.double(object["vac"]).flatMap { $0 > 0 ? $0 : nil }
        e.speed = JSONValue.double(object["vel"]).flatMap { $0 >= 0 ? $0 / 3.6 : nil }
        e.course = JSONValue.double(object["cog"]).flatMap { $0 >= 0 ? Geo.normalizedDegrees($0) : nil }
        e.batteryLevel = JSONValue.double(object["batt"]).flatMap { $0 >= 0 && $0 <= 100 ? $0 / 100 : nil }
        if object["t"] as? String == "u" { e.marked = true }
        return e
    }
}
