// SPDX-License-Identifier: MIT
import AsyncHTTPClient
import Foundation
import GPSLogSystem
import NIOCore
import NIOHTTP1

/// Nominatim's `/reverse` with `format=jsonv2` (`display_name`, ids as numbers or strings);
/// `{"error":"Unable to geocode"}` with HTTP 200 means no address here.
public struct NominatimGeocoder: ReverseGeocoder {
    /// The server's URL, without a trailing slash.
    public let baseURL: String
    /// Nominatim's `zoom`: how detailed the answer is (18 a building, 14 a neighbourhood, 10 a city).
    public let zoom: Int
    let http: GeocoderHTTP
    /// `nominatim:` and the base URL.
    public var cacheKey: String { "nominatim:" + baseURL }
    /// Always true: a network provider, paced by the rate limiter.
    public var isNetwork: Bool { true }

    /// A client of the server at `baseURL` that sends `userAgent` (the public Nominatim wants a contact in it).
    public init(baseURL: String, userAgent: String, client: HTTPClient, zoom: Int = 18) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.zoom = zoom
        http = GeocoderHTTP(client: client, userAgent: userAgent)
    }

    /// The zoom that matches a cache cell: an answer is shared by every entry of its cell, so a 5 km cell must be
    /// asked for a town, not for the street at the point that opened it.
    public static func zoom(forPrecision precision: Int) -> Int {
        switch precision {
        case ...5: 10
        case 6: 14
        default: 18
        }
    }

    /// Asks `/reverse` about the point; "Unable to geocode" is `.none`.
    public func lookup(latitude: Double, longitude: Double, language: String) async throws -> GeocodeAnswer {
        let url =
            "\(baseURL)/reverse?format=jsonv2&lat=\(latitude)&lon=\(longitude)&zoom=\(zoom)&layer=address&accept-language=\(GeocoderHTTP.query(language))"
        let object = try await http.getJSON(url)
        guard let dict = object as? [String: Any] else {
            throw GeocodeFailure.transient("Nominatim answered JSON that is not an object")
        }
        if dict["error"] != nil { return .none }
        guard let name = dict["display_name"] as? String, !name.isEmpty else { return .none }
        return .address(name)
    }
}

/// Photon's `/reverse` (a GeoJSON FeatureCollection with GeocodeJSON properties; no `display_name`, so one is
/// composed from name, street and house number, postcode and city, state, country). No feature: no address.
public struct PhotonGeocoder: ReverseGeocoder {
    /// The server's URL, without a trailing slash.
    public let baseURL: String
    let http: GeocoderHTTP
    /// `photon:` and the base URL.
    public var cacheKey: String { "photon:" + baseURL }
    /// Always true: a network provider, paced by the rate limiter.
    public var isNetwork: Bool { true }

    /// A client of the server at `baseURL` that sends `userAgent`.
    public init(baseURL: String, userAgent: String, client: HTTPClient) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        http = GeocoderHTTP(client: client, userAgent: userAgent)
    }

    /// Asks `/reverse` for the nearest feature; no feature is `.none`.
    public func lookup(latitude: Double, longitude: Double, language: String) async throws -> GeocodeAnswer {
        let object = try await http.getJSON(
            "\(baseURL)/reverse?lat=\(latitude)&lon=\(longitude)&lang=\(GeocoderHTTP.query(language))&limit=1")
        guard let dict = object as? [String: Any], let features = dict["features"] as? [[String: Any]] else {
            throw GeocodeFailure.transient("Photon answered JSON that is not a FeatureCollection")
        }
        guard let props = features.first?["properties"] as? [String: Any] else { return .none }
        return PhotonGeocoder.compose(props).map(GeocodeAnswer.address) ?? .none
    }

    /// "Name, Street 12, 1234 AB City, State, Country", leaving out what is missing or repeated.
    static func compose(_ p: [String: Any]) -> String? {
        func s(_ k: String) -> String? { (p[k] as? String).flatMap { $0.isEmpty ? nil : $0 } }
        var parts: [String] = []
        let street = [s("street"), s("housenumber")].compactMap { $0 }.joined(separator: " ")
        if let name = s("name"), name != s("street") { parts.append(name) }
        if !street.isEmpty { parts.append(street) }
        let city = [s("postcode"), s("city") ?? s("locality") ?? s("district")].compactMap { $0 }.joined(separator: " ")
        if !city.isEmpty { parts.append(city) }
        if let state = s("state"), state != s("city") { parts.append(state) }
        if let country = s("country") { parts.append(country) }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}

/// The HTTP side both network providers share: an identifying User-Agent, a 15 s timeout (1 s caused retry
/// storms elsewhere), and status codes mapped to what the worker must do.
struct GeocoderHTTP: Sendable {
    let client: HTTPClient
    let userAgent: String

    /// A query value, percent-encoded (a language list may hold commas, spaces or worse).
    static func query(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_.,")))
            ?? ""
    }

    func getJSON(_ url: String) async throws -> Any {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: userAgent)
        request.headers.add(name: "Accept", value: "application/json")
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await client.execute(request, timeout: .seconds(15))
            body = try await response.body.collect(upTo: 4 << 20)
        } catch {
            throw GeocodeFailure.transient("network: " + describeForPeople(error, peer: url, timeout: 15))
        }
        let status = Int(response.status.code)
        let text = String(buffer: body)
        switch HTTPAnswer(status: status, retryAfter: response.headers.first(name: "Retry-After")) {
        case .success:
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else {
                throw GeocodeFailure.transient("HTTP \(status) with a body that is not JSON")
            }
            return object
        case .rateLimited(let retry):
            throw GeocodeFailure.rateLimited(status: status, retryAfter: retry)
        case .forbidden:
            throw GeocodeFailure.forbidden(
                message: "the provider refused us (blocked, or the User-Agent was not accepted)")
        case .refused:
            throw GeocodeFailure.rejected(status: status, message: String(text.prefix(200)))
        case .serverError, .unexpected:
            throw GeocodeFailure.transient("HTTP \(status)")
        }
    }
}
