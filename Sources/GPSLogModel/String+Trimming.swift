// SPDX-License-Identifier: MIT

extension StringProtocol {
    /// The text without leading and trailing white space (Foundation-free, for names, labels and XML text).
    public var trimmedWhitespace: String {
        var s = self[...]
        while let first = s.first, first.isWhitespace { s.removeFirst() }
        while let last = s.last, last.isWhitespace { s.removeLast() }
        return String(s)
    }
}

/// The longest texts gpslog stores, in characters: far beyond real names, labels and addresses, small enough that
/// a hostile file or payload cannot turn one field into megabytes in every listing.
public enum TextLimit {
    /// A session's name.
    public static let sessionName = 200
    /// A mark's label or a region's name.
    public static let label = 500
    /// A reverse-geocoded address.
    public static let address = 1000
    /// A name the user gives a visit's place (`Visits.Name`'s CHECK says the same).
    public static let placeName = 200
    /// A device id.
    public static let deviceID = 200
    /// A Wi-Fi network's name (Overland's `wifi`).
    public static let wifi = 200
    /// Region names kept with one entry (OwnTracks' inregions): more regions overlapping one point is a mistake.
    public static let regionsPerEntry = 64
}

extension String {
    /// The text cut to `limit` characters, the last one an ellipsis when it was cut. Checked on the UTF-8 length
    /// first, which costs nothing for the usual short text.
    public func truncated(to limit: Int) -> String {
        guard utf8.count > limit, count > limit else { return self }
        return String(prefix(limit - 1)) + "…"
    }
}
