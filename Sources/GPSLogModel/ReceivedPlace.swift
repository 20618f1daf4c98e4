// SPDX-License-Identifier: MIT

/// What makes a received location a repeat: its time and place. A phone re-sending a batch it had no answer for
/// sends the very same points; two places at one time are both kept, as `import` keeps them (OwnTracks' times are
/// whole seconds, and a phone may report twice in one).
public struct ReceivedPlace: Hashable, Sendable {
    /// Milliseconds since the Unix epoch, UTC.
    public var time: Int64
    /// Degrees north, WGS 84.
    public var latitude: Double
    /// Degrees east, WGS 84.
    public var longitude: Double

    /// The time and place of a received entry.
    public init(_ entry: Entry) {
        time = entry.time.milliseconds
        latitude = entry.latitude
        longitude = entry.longitude
    }
}
