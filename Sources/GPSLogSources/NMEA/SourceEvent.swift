// SPDX-License-Identifier: MIT

import GPSLogModel

/// What a position source delivers: a position fix or a heading reading, in the order the receiver produced them.
public enum SourceEvent: Sendable, Equatable {
    /// A complete position for one receiver epoch.
    case fix(Fix)
    /// Where the vessel points (NMEA HDT/HDG), stamped with the latest epoch time.
    case heading(HeadingReading)
    /// The source lost its receiver and has it back (a device reopened, gpsd reached again): what follows is a new
    /// stretch of track, a new segment in exports, whatever the time between.
    case resumed
}

/// Counters kept while decoding an NMEA stream, so an import can say what it skipped and why.
///
/// A line normally holds one sentence; a line on which several sentences were run together (a lost line
/// terminator) is split at each `$` or `!` and every piece is counted on its own, so the sentence counters can
/// add up to more than `lines`.
public struct NMEAStatistics: Sendable, Equatable {
    /// Non-blank lines fed to the decoder.
    public var lines = 0
    /// Checksum-verified sentences of a supported type (RMC, GGA, GLL, VTG, GSA, GST, HDT, HDG, ZDA) that were decoded.
    public var sentences = 0
    /// Sentences whose `*hh` checksum does not match the XOR of the bytes between `$` and `*`.
    public var badChecksum = 0
    /// Text that is not a well-formed sentence: no checksum, truncated, run together with another, control
    /// bytes such as NUL, a malformed address, or a supported sentence whose time, date or position field is garbage.
    public var unparsable = 0
    /// Lines and sentences skipped on purpose: `#` comments (gpsfake metadata), `!` encapsulated sentences
    /// (AIS `!AIVDM`), proprietary `$P…` sentences and sentence types this decoder does not use (GSV, TXT, …).
    public var ignored = 0
    /// Epochs with a valid position that were dropped because no date was known (no RMC/ZDA date and no assumed date).
    public var undated = 0
    /// Epochs that closed without a valid position (void RMC, GGA quality 0, receiver searching, simulator mode).
    public var epochsWithoutFix = 0
    /// Fixes delivered.
    public var fixes = 0
    /// Heading readings delivered.
    public var headings = 0
    /// Headings dropped because no epoch time (or no date) was known yet when they arrived.
    public var headingsWithoutTime = 0
    /// RMC or ZDA dates outside the plausible window (`TimeWindow`: before 1980, or past a day after now) that were
    /// refused; the date known from earlier sentences stays.
    public var implausibleDates = 0
    /// Fixes and headings dropped for their time: outside the window, or far from the times around them and not
    /// confirmed by the ones after (`TimeConsensus`).
    public var implausibleTimes = 0

    /// Counters at zero.
    public init() {}
}
