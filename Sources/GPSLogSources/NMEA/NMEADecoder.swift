// SPDX-License-Identifier: MIT

import GPSLogModel

/// Decodes an NMEA 0183 stream, line by line, into fixes and heading readings.
///
/// - Sentences: RMC, GGA, GLL, VTG, GSA, GST, HDT, HDG and ZDA from any talker (GP, GN, GL, GA, GB, BD, IN, SD, HE,
///   II, …). The checksum (XOR of the bytes between `$` and `*`, two hex digits in either case) must be present
///   and match. Everything else — bad checksums, missing checksums, truncated or run-together sentences, NUL
///   bytes, `!AIVDM`, `#` comments, proprietary `$P…` and other types — is counted in ``statistics`` and skipped.
/// - Epochs: sentences are grouped by their UTC time of day, not by their order (receivers differ in order,
///   and some label one sentence of a cycle with the next second). Untimed sentences (VTG, GSA) join the open
///   epoch. When a sentence with another time arrives, the open epoch becomes one ``Fix`` if it holds a valid
///   position: RMC status A (and NMEA 2.3 mode not N, S or M), GGA quality 1…6 from a non-zero satellite
///   count, or GLL status A (mode not N, S or M). If several do, GLL wins over GGA over RMC (see ``NMEAEpoch``).
/// - Dates come from RMC (status A only; two-digit years 80–99 are 19xx, others 20xx, no GPS week-rollover
///   games) or ZDA. Between dated sentences the date is carried forward and rolled over when the time of day
///   jumps back by more than 12 hours (midnight). Without any date so far the decoder uses `assumedDate`;
///   without that, fixes wait (up to 64 epochs) for a later date, which dates them backwards, and are
///   otherwise counted as ``NMEAStatistics/undated`` and dropped.
/// - Headings: HDT (true) or HDG (magnetic; true = magnetic + deviation + variation, E positive), stamped with
///   the open epoch's time; before any time and date are known they are counted and dropped.
///
/// The hot path works in place on the caller's bytes and allocates nothing per sentence; use
/// ``feed(line:_:)`` with a closure to avoid even the per-line result array.
public struct NMEADecoder: Sendable {
    /// Counters so far.
    public private(set) var statistics = NMEAStatistics()

    var epoch = NMEAEpoch()
    /// The date of the last dated epoch (days since 1970-01-01) and that epoch's time of day (nil for an assumed
    /// date that no epoch has used yet).
    var knownDay: Int64?
    var knownDayTime: Int?
    /// Fixes waiting for a date, with `time` holding only the time of day.
    var pending: [Fix] = []
    let waitsForDate: Bool
    /// The latest magnetic variation from RMC (E positive), for HDG sentences that carry none.
    var lastVariation: Double?
    /// Holds back fixes and headings far from the recent times until later ones agree (see `TimeConsensus`).
    var times: TimeConsensus<SourceEvent>
    /// The days a date sentence may name (see `TimeWindow`).
    let earliestDay: Int64
    let latestDay: Int64

    static let maxPending = 64
    static let halfDay = 43_200_000
    static let msPerDay: Int64 = 86_400_000

    /// - Parameters:
    ///   - assumedDate: the UTC date to use while the stream has not given one (GGA-only logs). Its midnight
    ///     rollovers are followed like a real date's. A real RMC/ZDA date always takes precedence.
    ///   - window: the times a fix may have (up to a day past the system clock, when that is set).
    public init(assumedDate: (year: Int, month: Int, day: Int)? = nil, window: TimeWindow = .current) {
        times = TimeConsensus(window: window)
        earliestDay = window.earliest.milliseconds / NMEADecoder.msPerDay
        latestDay = window.latest.milliseconds / NMEADecoder.msPerDay
        if let d = assumedDate {
            knownDay = Timestamp.days(year: d.year, month: d.month, day: d.day)
        }
        waitsForDate = assumedDate == nil
        pending.reserveCapacity(NMEADecoder.maxPending)
    }

    // MARK: - Public API

    /// Feeds one line (without its terminator; trailing CR, LF, spaces are ignored) and calls `emit` for each
    /// event it completes, in order. A line completes at most a few events: the previous epoch's fix (plus any
    /// fixes that were waiting for a date) and a heading.
    public mutating func feed(line: UnsafeBufferPointer<UInt8>, _ emit: (SourceEvent) throws -> Void) rethrows {
        guard let base = line.baseAddress else { return }
        var end = line.count
        while end > 0, NMEADecoder.isBlank(base[end - 1]) { end -= 1 }
        var i = 0
        while i < end, NMEADecoder.isBlank(base[i]) { i += 1 }
        guard i < end else { return }
        statistics.lines += 1
        if base[i] == UInt8(ascii: "#") {
            statistics.ignored += 1
            return
        }
        if !NMEADecoder.isSentenceStart(base[i]) {
            // Leading garbage, e.g. the tail of a sentence whose start was lost.
            statistics.unparsable += 1
            while i < end, !NMEADecoder.isSentenceStart(base[i]) { i += 1 }
        }
        while i < end {
            i = try segment(base, start: i, end: end, emit)
        }
    }

    /// Feeds one line and returns the events it completed.
    public mutating func feed(line: UnsafeBufferPointer<UInt8>) -> [SourceEvent] {
        var events: [SourceEvent] = []
        feed(line: line) { events.append($0) }
        return events
    }

    /// Feeds one line of text and returns the events it completed.
    public mutating func feed(_ line: String) -> [SourceEvent] {
        var text = line
        return text.withUTF8 { feed(line: $0) }
    }

    /// Ends the stream: closes the open epoch and calls `emit` for its fix. Fixes still waiting for a date are
    /// counted as undated.
    public mutating func finish(_ emit: (SourceEvent) throws -> Void) rethrows {
        try closeEpoch(emit)
        epoch = NMEAEpoch()
        statistics.undated += pending.count
        pending.removeAll(keepingCapacity: true)
        var delivered = (fixes: 0, headings: 0)
        try times.finish { event in
            if case .fix = event { delivered.fixes += 1 } else { delivered.headings += 1 }
            try emit(event)
        }
        count(delivered)
    }

    /// Ends the stream and returns the last epoch's events.
    public mutating func finish() -> [SourceEvent] {
        var events: [SourceEvent] = []
        finish { events.append($0) }
        return events
    }

    // MARK: - Framing and checksum

    @inline(__always) static func isBlank(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A
    }

    @inline(__always) static func isSentenceStart(_ c: UInt8) -> Bool {
        c == UInt8(ascii: "$") || c == UInt8(ascii: "!")
    }

    @inline(__always) static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }

    /// Handles the sentence starting at `start` (a `$` or `!`) and returns where the next one starts: a line
    /// can hold sentences run together when a receiver dropped a line terminator.
    mutating func segment(
        _ base: UnsafePointer<UInt8>, start: Int, end: Int, _ emit: (SourceEvent) throws -> Void
    ) rethrows -> Int {
        var sum: UInt8 = 0
        var control = false
        var j = start + 1
        while j < end {
            let c = base[j]
            if c == UInt8(ascii: "*") || NMEADecoder.isSentenceStart(c) { break }
            sum ^= c
            control = control || c < 0x20 || c > 0x7E
            j += 1
        }
        let isEncapsulated = base[start] == UInt8(ascii: "!")
        guard j < end, base[j] == UInt8(ascii: "*") else {
            // No checksum: truncated, or cut off by the next sentence.
            if isEncapsulated { statistics.ignored += 1 } else { statistics.unparsable += 1 }
            return j
        }
        let star = j
        var next = star + 1
        while next < end, !NMEADecoder.isSentenceStart(base[next]) { next += 1 }
        var tail = next
        while tail > star + 1, NMEADecoder.isBlank(base[tail - 1]) { tail -= 1 }
        if isEncapsulated {
            statistics.ignored += 1
            return next
        }
        guard tail - star == 3, let hi = NMEADecoder.hexValue(base[star + 1]),
            let lo = NMEADecoder.hexValue(base[star + 2]), !control
        else {
            statistics.unparsable += 1
            return next
        }
        guard hi << 4 | lo == sum else {
            statistics.badChecksum += 1
            return next
        }
        try decode(base, bodyStart: start + 1, star: star, emit)
        return next
    }

    /// Dispatches a checksum-verified sentence on its type.
    mutating func decode(
        _ base: UnsafePointer<UInt8>, bodyStart: Int, star: Int, _ emit: (SourceEvent) throws -> Void
    ) rethrows {
        var comma = bodyStart
        while comma < star, base[comma] != 0x2C { comma += 1 }
        let length = comma - bodyStart
        if length >= 1, base[bodyStart] == UInt8(ascii: "P") {
            statistics.ignored += 1  // proprietary
            return
        }
        guard length == 5 else {
            statistics.unparsable += 1
            return
        }
        for k in bodyStart..<comma {
            let c = base[k]
            guard (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) else {
                statistics.unparsable += 1
                return
            }
        }
        let type = UInt32(base[bodyStart + 2]) << 16 | UInt32(base[bodyStart + 3]) << 8 | UInt32(base[bodyStart + 4])
        var fields = NMEAFieldCursor(base: base, start: comma + 1, end: star, empty: comma >= star)
        let ok: Bool
        switch type {
        case NMEADecoder.typeRMC: ok = try rmc(&fields, emit)
        case NMEADecoder.typeGGA: ok = try gga(&fields, emit)
        case NMEADecoder.typeGLL: ok = try gll(&fields, emit)
        case NMEADecoder.typeVTG: ok = vtg(&fields)
        case NMEADecoder.typeGSA: ok = gsa(&fields)
        case NMEADecoder.typeGST: ok = try gst(&fields, emit)
        case NMEADecoder.typeZDA: ok = try zda(&fields, emit)
        case NMEADecoder.typeHDT: ok = try hdt(&fields, emit)
        case NMEADecoder.typeHDG: ok = try hdg(&fields, emit)
        default:
            statistics.ignored += 1
            return
        }
        if ok { statistics.sentences += 1 } else { statistics.unparsable += 1 }
    }

    // Sentence types as three ASCII bytes packed big-endian ("RMC" = 0x52_4D_43).
    static let typeRMC: UInt32 = 0x52_4D_43
    static let typeGGA: UInt32 = 0x47_47_41
    static let typeGLL: UInt32 = 0x47_4C_4C
    static let typeVTG: UInt32 = 0x56_54_47
    static let typeGSA: UInt32 = 0x47_53_41
    static let typeGST: UInt32 = 0x47_53_54
    static let typeZDA: UInt32 = 0x5A_44_41
    static let typeHDT: UInt32 = 0x48_44_54
    static let typeHDG: UInt32 = 0x48_44_47

    // MARK: - Epochs and dates

    /// A timed sentence arrived: close the open epoch if its time differs, then make `timeOfDay` the open one.
    mutating func enterEpoch(_ timeOfDay: Int, _ emit: (SourceEvent) throws -> Void) rethrows {
        guard let current = epoch.timeOfDay else {
            epoch.timeOfDay = timeOfDay  // adopt the untimed sentences seen so far
            return
        }
        if current == timeOfDay { return }
        try closeEpoch(emit)
        epoch = NMEAEpoch()
        epoch.timeOfDay = timeOfDay
    }

    /// The date of an instant at `timeOfDay` relative to the last known date, following midnight rollovers in
    /// either direction (a jump of more than 12 hours in the time of day means the day changed).
    func day(for timeOfDay: Int) -> Int64? {
        guard let day = knownDay else { return nil }
        guard let last = knownDayTime else { return day }
        if timeOfDay < last - NMEADecoder.halfDay { return day + 1 }
        if timeOfDay > last + NMEADecoder.halfDay { return day - 1 }
        return day
    }

    /// An RMC or ZDA of the open epoch gave its date: it becomes the known date at once (so headings of this
    /// epoch can be stamped), and fixes waiting for a date are dated from it and delivered, in order.
    mutating func learnDate(_ day: Int64, _ emit: (SourceEvent) throws -> Void) rethrows {
        guard let timeOfDay = epoch.timeOfDay else { return }
        guard day >= earliestDay && day <= latestDay else {
            // ZDA 2100, RMC year 70 read as 2070: refused, and the date carried from earlier sentences stays.
            statistics.implausibleDates += 1
            return
        }
        epoch.day = day
        knownDay = day
        knownDayTime = timeOfDay
        if !pending.isEmpty { try flushPending(day: day, timeOfDay: timeOfDay, emit) }
    }

    /// Turns the open epoch into a fix (or counts it as without one), keeping the date state in step.
    mutating func closeEpoch(_ emit: (SourceEvent) throws -> Void) rethrows {
        guard let timeOfDay = epoch.timeOfDay else { return }
        let resolved = epoch.day ?? day(for: timeOfDay)
        if let d = resolved {
            knownDay = d
            knownDayTime = timeOfDay
        }
        guard var fix = epoch.makeFix(time: Timestamp(milliseconds: Int64(timeOfDay))) else {
            statistics.epochsWithoutFix += 1
            return
        }
        if let d = resolved {
            fix.time.milliseconds += d * NMEADecoder.msPerDay
            try deliver(.fix(fix), at: fix.time, emit)
        } else if waitsForDate {
            if pending.count == NMEADecoder.maxPending {
                pending.removeFirst()
                statistics.undated += 1
            }
            pending.append(fix)
        } else {
            statistics.undated += 1
        }
    }

    /// A date became known at `timeOfDay`: date the waiting fixes backwards from it and deliver them.
    mutating func flushPending(day: Int64, timeOfDay: Int, _ emit: (SourceEvent) throws -> Void) rethrows {
        var d = day
        var following = timeOfDay
        for k in pending.indices.reversed() {
            let t = Int(pending[k].time.milliseconds)
            if t > following + NMEADecoder.halfDay { d -= 1 } else if t < following - NMEADecoder.halfDay { d += 1 }
            pending[k].time.milliseconds = Int64(t) + d * NMEADecoder.msPerDay
            following = t
        }
        for fix in pending { try deliver(.fix(fix), at: fix.time, emit) }
        pending.removeAll(keepingCapacity: true)
    }

    /// Delivers a heading in degrees true, stamped with the open epoch's time.
    mutating func emitHeading(_ degrees: Double, _ emit: (SourceEvent) throws -> Void) rethrows {
        guard degrees.isFinite, let timeOfDay = epoch.timeOfDay, let d = day(for: timeOfDay) else {
            statistics.headingsWithoutTime += 1
            return
        }
        let time = Timestamp(milliseconds: d * NMEADecoder.msPerDay + Int64(timeOfDay))
        try deliver(.heading(HeadingReading(time: time, degrees: Geo.normalizedDegrees(degrees))), at: time, emit)
    }

    /// Passes an event through the time consensus; counts what it delivers (now, or held ones it releases).
    @inline(__always) mutating func deliver(
        _ event: SourceEvent, at time: Timestamp, _ emit: (SourceEvent) throws -> Void
    ) rethrows {
        var delivered = (fixes: 0, headings: 0)
        try times.admit(event, at: time) { e in
            if case .fix = e { delivered.fixes += 1 } else { delivered.headings += 1 }
            try emit(e)
        }
        count(delivered)
    }

    @inline(__always) mutating func count(_ delivered: (fixes: Int, headings: Int)) {
        statistics.fixes += delivered.fixes
        statistics.headings += delivered.headings
        statistics.implausibleTimes = times.dropped
    }
}
