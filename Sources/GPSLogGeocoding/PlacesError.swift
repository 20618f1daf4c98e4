// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Why a places index or a table of places could not be read or built; each says where, and what to do.
public enum PlacesError: LocalizedError, Equatable {
    /// The world index (`places:world`) is in none of the places gpslog looks.
    case notInstalled(searched: [String])
    /// A file that cannot be read.
    case unreadable(path: String)
    /// A file that is not an index this gpslog reads.
    case notAnIndex(path: String, reason: String)
    /// A table of places with a bad line.
    case malformedTable(path: String, line: Int, reason: String)
    /// Rows an index cannot hold.
    case notBuildable(String)

    /// What went wrong, naming the file (and line) where there is one, and what to do, for people.
    public var errorDescription: String? {
        switch self {
        case .notInstalled(let searched):
            "the world places index (places:world, the default geocoder) is not installed (looked for "
                + searched.map(\.visible).joined(separator: ", ")
                + "). The Debian package ships it; with a bare binary, build one from GeoNames' cities1000.txt "
                + "(download.geonames.org/export/dump/) with `gpslog places build cities1000.txt -o "
                + "\(WorldPlaces.fileName)` beside the binary or set \(WorldPlaces.environmentVariable) to it; in a source "
                + "checkout, `make places` builds it. Or choose another provider (regions:demo)"
        case .unreadable(let path): "\(path.visible): cannot be read"
        case .notAnIndex(let path, let reason):
            "\(path.visible): not a gpslog places index (\(reason)); rebuild it with `make places` or `gpslog places build`"
        case .malformedTable(let path, let line, let reason): "\(path.visible):\(line): \(reason)"
        case .notBuildable(let reason): "cannot index the places: \(reason)"
        }
    }
}
