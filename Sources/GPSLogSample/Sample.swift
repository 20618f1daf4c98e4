// SPDX-License-Identifier: MIT

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
}
