// SPDX-License-Identifier: MIT
import GPSLogModel

/// The real recording bundled with gpslog (see SOURCE.md beside this file): a boat on the IJsselmeer, 2018.
public enum Sample {
    /// The file name of the bundled NMEA log.
    public static let fileName = "bundg_zeus_9.log"

    /// The bundled NMEA log, byte for byte.
    public static var nmea: String {
        EmbeddedResources.files.first { $0.name == fileName }!.contents
    }

    /// A name for sessions made from it.
    public static let sessionName = "IJsselmeer sail (sample)"

    /// The id its session gets on first import, derived from its bytes, so the golden exports in `Exports/` are
    /// the same on every machine.
    public static var sessionID: String {
        var rng = SplitMix64(seed: SplitMix64.seed(from: nmea))
        return Identifier.uuidV4(using: &rng)
    }
}
