// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Where batches go: an Overland-compatible endpoint, an OwnTracks HTTP endpoint, or a Traccar server's OsmAnd port.
public struct Destination: Sendable {
    /// The protocol spoken to the endpoint.
    public enum Format: String, Sendable, CaseIterable {
        /// Overland batches: `{"locations":[...]}`, confirmed by `{"result":"ok"}`.
        case overland
        /// One OwnTracks location message per POST, confirmed by any 2xx.
        case owntracks
        /// One location per GET, as query parameters (`OsmAnd`), confirmed by any 2xx: Traccar's OsmAnd protocol.
        case osmand
    }

    /// The URL, possibly a template with %TS %LAT %LON %SPD %ACC %ALT %BAT (Overland's URL parameters).
    public var url: String
    /// Overland batches or OwnTracks messages.
    public var format: Format
    /// Sent as `Authorization: Bearer`; never logged, never stored.
    public var token: AccessToken?
    /// Overland's `device_id` for locations without one; for OwnTracks `user/device` (X-Limit-U, X-Limit-D); for
    /// OsmAnd the device's identifier (`id`), the host name when none is given.
    public var deviceID: String?
    /// Overland's `unique_id` on every location (`--unique-id`), when set.
    public var uniqueID: String?

    /// Checks that `url` is an http(s) URL with a host; throws `UploadError.badURL`, with secrets hidden, if not.
    /// `osmand://HOST[:PORT][/PATH]` (port 5055) and `osmands://` (HTTPS) stand for the OsmAnd format over
    /// http(s), whatever `format` says.
    public init(url: String, format: Format = .overland, token: AccessToken? = nil, deviceID: String? = nil) throws {
        var url = url
        var format = format
        if OsmAnd.isOsmAnd(url) {
            guard let http = OsmAnd.httpURL(url) else { throw UploadError.badURL(Destination.redact(url)) }
            url = http
            format = .osmand
        }
        guard let parsed = URL(string: url.replacingOccurrences(of: "%", with: "%25")),
            let scheme = parsed.scheme?.lowercased(),
            scheme == "http" || scheme == "https", parsed.host != nil
        else { throw UploadError.badURL(Destination.redact(url)) }
        self.url = url
        self.format = format
        self.token = token
        self.deviceID = format == .osmand ? deviceID ?? OsmAnd.defaultDeviceID : deviceID
    }

    /// The key under which progress is stored: the format and the URL without credentials or query values that
    /// look secret, so another token for the same server resumes where the last one stopped.
    public var progressKey: String { format.rawValue + " " + Destination.redact(url) }

    /// The URL as it may be shown: user info and the values of secret-looking query items replaced by `***`.
    public var displayURL: String { Destination.redact(url) }

    static let secretNames = [
        "token", "access_token", "key", "api_key", "apikey", "secret", "password", "auth", "sig", "signature",
    ]

    /// Replaces a URL's password and secret query values with `***`.
    public static func redact(_ url: String) -> String {
        guard var c = URLComponents(string: url.replacingOccurrences(of: "%", with: "%25")) else {
            return "<invalid URL>"
        }
        if c.password != nil { c.password = "***" }
        if c.user != nil && c.password == nil { c.user = "***" }
        c.queryItems = c.queryItems?.map { item in
            secretNames.contains(item.name.lowercased()) ? URLQueryItem(name: item.name, value: "***") : item
        }
        return (c.string ?? "<invalid URL>").replacingOccurrences(of: "%25", with: "%")
    }

    /// The URL with Overland's template parameters replaced from the latest point: %TS (Unix seconds), %LAT,
    /// %LON, %SPD (m/s), %ACC (m), %ALT (m), %BAT (0-1); unknown values become -1, as Overland sends them.
    public func expandedURL(latest e: Entry?) -> String {
        guard url.contains("%"), let e else { return url }
        func f(_ v: Double?, _ places: Int) -> String { v.map { String(format: "%.\(places)f", $0) } ?? "-1" }
        let replacements: [(String, String)] = [
            ("%TS", String(e.time.milliseconds / 1000)), ("%LAT", f(e.latitude, 7)), ("%LON", f(e.longitude, 7)),
            ("%SPD", f(e.speed, 2)), ("%ACC", f(e.horizontalAccuracy, 1)), ("%ALT", f(e.altitude, 1)),
            ("%BAT", f(e.batteryLevel, 2)),
        ]
        var out = url
        for (key, value) in replacements { out = out.replacingOccurrences(of: key, with: value) }
        return out
    }
}
