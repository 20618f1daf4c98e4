// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// The OsmAnd protocol as a Traccar server reads it (its `OsmAndProtocolDecoder`, port 5055): one location per
/// request, as query parameters `id`, `timestamp` (Unix seconds), `lat`, `lon`, `speed` (knots), `bearing`,
/// `altitude` (m), `accuracy` (m), `hdop` and `batt` (percent); a 200 confirms it, a 400 names a device the server
/// does not know. See https://www.traccar.org/osmand/.
public enum OsmAnd {
    /// Traccar's OsmAnd port, for `osmand://HOST` without one.
    public static let defaultPort = 5055
    /// Knots per metre a second: Traccar reads `speed` in knots.
    static let knotsPerMetreSecond = 3600.0 / 1852.0

    /// The http(s) URL of `osmand://HOST[:PORT][/PATH]` (port 5055 by default) or `osmands://HOST[:PORT][/PATH]`
    /// (HTTPS, port 443 by default: Traccar behind a proxy that holds the certificate); nil for another scheme.
    public static func httpURL(_ url: String) -> String? {
        guard var c = URLComponents(string: url), let scheme = c.scheme?.lowercased(),
            scheme == "osmand" || scheme == "osmands"
        else { return nil }
        c.scheme = scheme == "osmand" ? "http" : "https"
        if c.port == nil && scheme == "osmand" { c.port = defaultPort }
        return c.string
    }

    /// True when `url` names an OsmAnd (Traccar) server: `osmand://` or `osmands://`.
    public static func isOsmAnd(_ url: String) -> Bool {
        let lower = url.lowercased()
        return lower.hasPrefix("osmand://") || lower.hasPrefix("osmands://")
    }

    /// The query parameters of one location, in the order the OsmAnd app sends them; unknown values are left out
    /// (Traccar keeps what a request lacks unset).
    public static func parameters(_ e: Entry, deviceID: String) -> [(String, String)] {
        func f(_ v: Double?, _ places: Int) -> String? {
            guard let v, v.isFinite else { return nil }
            return String(format: "%.\(places)f", v)
        }
        var out: [(String, String)] = [
            ("id", deviceID), ("timestamp", String(e.time.milliseconds.floorSeconds)),
            ("lat", f(e.latitude, 7) ?? "0"), ("lon", f(e.longitude, 7) ?? "0"),
        ]
        let optional: [(String, String?)] = [
            ("speed", f(e.speed.map { $0 * knotsPerMetreSecond }, 2)), ("bearing", f(e.course ?? e.heading, 1)),
            ("altitude", f(e.altitude, 1)), ("accuracy", f(e.horizontalAccuracy, 1)), ("hdop", f(e.hdop, 1)),
            ("batt", f(e.batteryLevel.map { $0 * 100 }, 0)),
        ]
        for case (let key, let value?) in optional { out.append((key, value)) }
        return out
    }

    /// `base` with one location's parameters added to its query (after what the URL's own query holds).
    public static func requestURL(base: String, entry: Entry, deviceID: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+;#")
        let query = parameters(entry, deviceID: deviceID).map { key, value in
            key + "=" + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)
        }.joined(separator: "&")
        let joiner = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        return base + joiner + query
    }

    /// The device id when none is given: this machine's host name (what Traccar's device identifier is set to).
    public static var defaultDeviceID: String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "gpslog" }
        let text = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "gpslog" : text
    }
}

extension Int64 {
    /// Milliseconds as whole Unix seconds, rounded down.
    fileprivate var floorSeconds: Int64 { self >= 0 ? self / 1000 : (self - 999) / 1000 }
}
