// SPDX-License-Identifier: MIT

/// The regions file shipped with gpslog (see regions-demo.SOURCE.md): the default offline provider.
public enum DemoRegions {
    /// The file's name, as embedded.
    public static let name = "regions-demo.geojson"

    /// The file's text, embedded at build time.
    public static var geoJSON: String { EmbeddedResources.files.first { $0.name == name }!.contents }
}
