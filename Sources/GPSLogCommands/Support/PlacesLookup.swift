// SPDX-License-Identifier: MIT
import GPSLogGeocoding
import GPSLogView

/// Countries and towns for `stats` and the web view's /stats, from the places index (places:world).
enum PlacesLookup {
    /// A place counts for its country within 50 km (as places:world answers), for its town within 10 km.
    static func locate() throws -> WebView.Locate {
        let index = try PlacesIndex(path: try WorldPlaces.locate())
        return { latitude, longitude in
            guard let (place, distance) = index.nearest(latitude: latitude, longitude: longitude, within: 50_000)
            else { return nil }
            return (place.country, distance <= 10_000 ? "\(place.name), \(place.country)" : nil)
        }
    }
}
