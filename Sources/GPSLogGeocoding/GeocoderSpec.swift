// SPDX-License-Identifier: MIT
import AsyncHTTPClient
import Foundation

/// The `--provider` option: `places:world`, `places:PATH`, `regions:PATH`, `geonames:PATH` (offline),
/// `nominatim:URL`, `photon:URL`.
public struct GeocoderSpec: Sendable {
    /// The option as given, e.g. `nominatim:https://nominatim.example.org`.
    public var text: String

    /// The offline default: the world index of GeoNames places installed with gpslog (`WorldPlaces`). Where it is
    /// not installed, `make` says how to build it; `record` goes on without addresses (see `isDefault`).
    public static let defaultProvider = "places:world"

    /// True for the default provider, which `record` may go without when its index is not installed.
    public var isDefault: Bool { text == GeocoderSpec.defaultProvider }

    /// Wraps the option's text; `make` reads it.
    public init(_ text: String) { self.text = text }

    /// What `make` produced: the geocoder, its default rate, and a notice to show the user (why a public server
    /// is limited), if any.
    public struct Made {
        /// The provider, ready to ask.
        public var geocoder: any ReverseGeocoder
        /// The rate used when none is requested (`--rate`).
        public var defaultRate: GeocodeRate
        /// Something to tell the user about the provider (why a public server is limited); nil: nothing.
        public var notice: String?
        /// The most a provider's policy allows, when it states one (the public Nominatim: 1 request/s).
        public var maximumRate: GeocodeRate?

        /// The rate to use: the requested one, else the default; one above the policy's maximum is refused.
        public func rate(requested: GeocodeRate?) throws -> GeocodeRate {
            guard let requested else { return defaultRate }
            if let maximumRate, requested.spacingMilliseconds < maximumRate.spacingMilliseconds {
                throw GeocodeFailure.setup(
                    "--rate \(requested) is faster than this server's usage policy allows (at most \(maximumRate)); use --rate 4/min or slower for anything that runs for days"
                )
            }
            return requested
        }
    }

    /// A provider's file, with a leading `~` or `~/` as `$HOME` (`places:~/x.bin` reaches no shell to expand it).
    static func path(_ text: Substring) -> String {
        guard text == "~" || text.hasPrefix("~/"),
            let home = ProcessInfo.processInfo.environment["HOME"].flatMap({ $0.isEmpty ? nil : $0 })
        else { return String(text) }
        return (home.hasSuffix("/") && home.count > 1 ? String(home.dropLast()) : home) + text.dropFirst()
    }

    /// The version in the User-Agent.
    public static let version = "0.1.0"

    /// Builds the geocoder. Network providers need `client`; the public Nominatim needs `contact` (its policy
    /// requires an identifying User-Agent with a contact).
    public func make(contact: String?, precision: Int = 7, client: @autoclosure () -> HTTPClient = .shared) throws
        -> Made
    {
        let userAgent =
            "gpslog/\(GeocoderSpec.version) (reverse geocoding of personal GPS tracks\(contact.map { "; \($0)" } ?? ""))"
        if text.hasPrefix("places:") {
            let geocoder =
                isDefault ? try PlacesGeocoder.world() : try PlacesGeocoder(path: Self.path(text.dropFirst(7)))
            return Made(geocoder: geocoder, defaultRate: GeocodeRate(count: 1000, seconds: 1))
        }
        if text == "regions:demo" || text == "regions" {
            return Made(
                geocoder: try RegionsGeocoder(geoJSON: DemoRegions.geoJSON, name: DemoRegions.name),
                defaultRate: GeocodeRate(count: 1000, seconds: 1))
        }
        if text.hasPrefix("regions:") {
            return Made(
                geocoder: try RegionsGeocoder(path: Self.path(text.dropFirst(8))),
                defaultRate: GeocodeRate(count: 1000, seconds: 1))
        }
        if text.hasPrefix("geonames:") {
            return Made(
                geocoder: try GeoNamesGeocoder(path: Self.path(text.dropFirst(9))),
                defaultRate: GeocodeRate(count: 1000, seconds: 1))
        }
        for prefix in ["nominatim:", "photon:"] where text.hasPrefix(prefix) {
            let url = String(text.dropFirst(prefix.count))
            guard let host = URL(string: url)?.host, url.hasPrefix("http://") || url.hasPrefix("https://") else {
                throw GeocodeFailure.setup("'\(url)' is not an http(s) URL; use \(prefix)https://your.server")
            }
            if prefix == "nominatim:" {
                let geocoder = NominatimGeocoder(
                    baseURL: url, userAgent: userAgent, client: client(),
                    zoom: NominatimGeocoder.zoom(forPrecision: precision))
                if host == "nominatim.openstreetmap.org" {
                    guard let contact, !contact.isEmpty else {
                        throw GeocodeFailure.setup(
                            "the public Nominatim requires an identifying User-Agent with a contact: add --contact you@example.org"
                        )
                    }
                    return Made(
                        geocoder: geocoder, defaultRate: GeocodeRate(count: 4, seconds: 60),
                        notice: """
                            Using the public Nominatim server. Its usage policy (May 2026) allows at most 1 request/s per \
                            application and only 4 requests/min for anything that runs for days or at intervals, requires an \
                            identifying User-Agent with a contact, forbids personal data, and asks tracking applications to run \
                            their own instance. gpslog asks at most 4/min, once per ~150 m cell, and caches every answer; \
                            please run your own server for regular use.
                            """, maximumRate: GeocodeRate(count: 1, seconds: 1))
                }
                return Made(geocoder: geocoder, defaultRate: GeocodeRate(count: 1, seconds: 1))
            }
            let geocoder = PhotonGeocoder(baseURL: url, userAgent: userAgent, client: client())
            let notice =
                host == "photon.komoot.io"
                ? "Using komoot's public Photon demo server: it states no numeric limit but throttles or bans heavy use and asks for an identifying User-Agent; gpslog asks at most 1/s and caches every answer. Please run your own Photon for regular use."
                : nil
            return Made(geocoder: geocoder, defaultRate: GeocodeRate(count: 1, seconds: 1), notice: notice)
        }
        throw GeocodeFailure.setup(
            "unknown provider '\(text)': use places:world, places:PATH, regions:demo, regions:PATH, geonames:PATH, nominatim:URL or photon:URL"
        )
    }
}
