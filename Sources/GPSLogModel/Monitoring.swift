// SPDX-License-Identifier: MIT

/// OwnTracks' monitoring modes, under its names and numbers (its `monitoring` setting; the `m` of a location is 1
/// or 2). What `record --monitoring` chooses; nil everywhere means GPS Log's interval sampling.
public enum MonitoringMode: Int, Sendable, Codable, CaseIterable {
    /// Nothing automatic and no region events: only marks.
    case quiet = -1
    /// Nothing automatic: marks and region events.
    case manual = 0
    /// At least 500 m moved and at most one entry per 5 minutes, with pings while nothing moves.
    case significant = 1
    /// An entry once the position moved the locator displacement or the locator interval passed.
    case move = 2

    /// The name OwnTracks' apps show, as `--monitoring` takes it.
    public var name: String {
        switch self {
        case .quiet: "quiet"
        case .manual: "manual"
        case .significant: "significant"
        case .move: "move"
        }
    }

    /// A mode by its name or OwnTracks' number (`-1`...`2`).
    public init?(name: String) {
        if let mode = Self.allCases.first(where: { $0.name == name }) {
            self = mode
        } else if let number = Int(name), let mode = MonitoringMode(rawValue: number) {
            self = mode
        } else {
            return nil
        }
    }
}

/// What made an entry (OwnTracks' `t`); nil for an automatic one.
public enum ReportTrigger: String, Sendable, Codable, CaseIterable {
    /// A periodic report while nothing moves, so a silent device can be told from a dead one.
    case ping = "p"
    /// A circular region entered or left.
    case circularRegion = "c"
    /// A follow region (OwnTracks iOS) left.
    case followRegion = "C"
    /// A beacon region.
    case beacon = "b"
    /// A location asked for by a `reportLocation` command.
    case reportLocation = "r"
    /// The user asked for it (`gpslog mark`).
    case user = "u"
    /// The locator interval passed in move mode.
    case timer = "t"
    /// A frequent location (OwnTracks iOS visits).
    case frequentLocations = "v"
}
