// SPDX-License-Identifier: MIT

/// An instant in UTC with millisecond precision: milliseconds since 1970-01-01T00:00:00Z.
///
/// This is gpslog's one timestamp representation, in memory and in the database (INTEGER columns), so nothing
/// depends on the local time zone. Formatting and parsing are written by hand because they run once per point in
/// every import and export, where Foundation's formatters cost far more than the arithmetic below.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since the Unix epoch, UTC.
    public var milliseconds: Int64

    /// From milliseconds since the Unix epoch, UTC.
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// From seconds since the Unix epoch, rounded to the nearest millisecond.
    public init(seconds: Double) { self.milliseconds = Int64((seconds * 1000).rounded()) }

    /// Seconds since the Unix epoch.
    public var seconds: Double { Double(milliseconds) / 1000 }

    /// Earlier is less.
    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.milliseconds < b.milliseconds }

    /// The ISO 8601 form, e.g. `2018-08-20T09:47:37Z` (milliseconds only when not zero).
    public var description: String { iso8601() }

    /// Adds a number of milliseconds.
    public func adding(milliseconds delta: Int64) -> Timestamp { Timestamp(milliseconds: milliseconds + delta) }

    // MARK: - Civil calendar (proleptic Gregorian), after Howard Hinnant's days_from_civil / civil_from_days

    /// Days since 1970-01-01 for a civil date.
    public static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The civil date of a day count since 1970-01-01.
    public static func civil(days z0: Int64) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(m <= 2 ? y + 1 : y), Int(m), Int(d))
    }

    /// Builds a timestamp from UTC calendar fields.
    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, millisecond: Int = 0)
    {
        let days = Timestamp.days(year: year, month: month, day: day)
        milliseconds = ((days * 86400 + Int64(hour * 3600 + minute * 60 + second)) * 1000) + Int64(millisecond)
    }

    /// UTC calendar fields of this instant.
    public var components: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int) {
        let ms = milliseconds
        var days = ms / 86_400_000
        var rem = ms % 86_400_000
        if rem < 0 {
            rem += 86_400_000
            days -= 1
        }
        let (y, m, d) = Timestamp.civil(days: days)
        let secs = Int(rem / 1000)
        return (y, m, d, secs / 3600, (secs / 60) % 60, secs % 60, Int(rem % 1000))
    }

    // MARK: - ISO 8601

    /// Formats as `YYYY-MM-DDTHH:MM:SS[.mmm]Z`. With `fraction` nil the milliseconds are written only when not zero.
    public func iso8601(fraction: Bool? = nil) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(24)
        appendISO8601(to: &bytes, fraction: fraction)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the ISO 8601 form to a byte buffer (the exporters' hot path: no intermediate String).
    public func appendISO8601(to out: inout [UInt8], fraction: Bool? = nil) {
        let c = components
        func two(_ v: Int) {
            out.append(UInt8(48 + v / 10))
            out.append(UInt8(48 + v % 10))
        }
        var year = c.year
        if year < 0 {
            out.append(UInt8(ascii: "-"))
            year = -year
        }
        out.append(UInt8(48 + (year / 1000) % 10))
        out.append(UInt8(48 + (year / 100) % 10))
        two(year % 100)
        out.append(UInt8(ascii: "-"))
        two(c.month)
        out.append(UInt8(ascii: "-"))
        two(c.day)
        out.append(UInt8(ascii: "T"))
        two(c.hour)
        out.append(UInt8(ascii: ":"))
        two(c.minute)
        out.append(UInt8(ascii: ":"))
        two(c.second)
        if fraction ?? (c.millisecond != 0) {
            out.append(UInt8(ascii: "."))
            out.append(UInt8(48 + c.millisecond / 100))
            two(c.millisecond % 100)
        }
        out.append(UInt8(ascii: "Z"))
    }

    /// Parses ISO 8601 / RFC 3339 date-times: `2018-08-20T09:47:37Z`, `...37.123Z`, `...37+02:00`, `...37-0700`,
    /// a space instead of `T`, and a bare date (midnight UTC). A time without a zone is taken as UTC.
    /// Returns nil for anything else, including impossible dates such as February 30.
    public init?(iso8601 text: some StringProtocol) {
        self.init(iso8601Bytes: Array(text.utf8))
    }

    /// Parses the same forms from UTF-8 bytes (the streaming importers' hot path: no String is made).
    public init?(iso8601Bytes bytes: [UInt8]) {
        var p = ISOScanner(bytes)
        guard let year = p.digits(4), p.expect(UInt8(ascii: "-")), let month = p.digits(2),
            p.expect(UInt8(ascii: "-")), let day = p.digits(2),
            (1...12).contains(month), day >= 1, day <= Timestamp.daysIn(month: month, year: year)
        else { return nil }
        if p.atEnd {
            self.init(year: year, month: month, day: day)
            return
        }
        guard p.expect(UInt8(ascii: "T")) || p.expect(UInt8(ascii: "t")) || p.expect(UInt8(ascii: " ")),
            let hour = p.digits(2), p.expect(UInt8(ascii: ":")), let minute = p.digits(2),
            hour < 24, minute < 60
        else { return nil }
        var second = 0
        var millis = 0
        if p.expect(UInt8(ascii: ":")) {
            // A leap second (23:59:60) is the next second, as POSIX time counts it (and as the NMEA decoder does):
            // after :59, never folded onto it.
            guard let s = p.digits(2), s <= 60 else { return nil }
            second = s
            if p.expect(UInt8(ascii: ".")) || p.expect(UInt8(ascii: ",")) {
                var scale = 100
                var any = false
                while let d = p.digit() {
                    any = true
                    millis += d * scale
                    scale /= 10
                }
                guard any else { return nil }
            }
        }
        var offsetMinutes = 0
        if p.expect(UInt8(ascii: "Z")) || p.expect(UInt8(ascii: "z")) {
        } else if let sign = p.sign() {
            guard let oh = p.digits(2), oh < 24 else { return nil }
            _ = p.expect(UInt8(ascii: ":"))
            let om = p.digits(2) ?? 0
            offsetMinutes = sign * (oh * 60 + om)
        }
        guard p.atEnd else { return nil }
        self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: second, millisecond: millis)
        milliseconds -= Int64(offsetMinutes) * 60_000
        // An offset can carry 0000-01-01 or 9999-12-31 into a year that four digits cannot write (the fuzz invariant:
        // 9999-12-31T23:59:59-23:59 was written back as 0000-01-01T23:58:59Z).
        guard Timestamp.writable.contains(milliseconds) else { return nil }
    }

    /// The instants `iso8601()` writes with a four-digit year: 0000-01-01T00:00:00Z up to 10000-01-01T00:00:00Z.
    /// Literals (checked in `TimestampTests`): a computed static is initialized lazily, a check on every parse.
    public static let writable: Range<Int64> = -62_167_219_200_000..<253_402_300_800_000

    /// Days in a month of the proleptic Gregorian calendar.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

private struct ISOScanner {
    let b: [UInt8]
    var i = 0
    init(_ b: [UInt8]) { self.b = b }
    var atEnd: Bool { i == b.count }
    mutating func expect(_ c: UInt8) -> Bool {
        guard i < b.count, b[i] == c else { return false }
        i += 1
        return true
    }
    mutating func digit() -> Int? {
        guard i < b.count, b[i] >= 48, b[i] <= 57 else { return nil }
        defer { i += 1 }
        return Int(b[i] - 48)
    }
    mutating func digits(_ n: Int) -> Int? {
        var v = 0
        for _ in 0..<n {
            guard let d = digit() else { return nil }
            v = v * 10 + d
        }
        return v
    }
    mutating func sign() -> Int? {
        if expect(UInt8(ascii: "+")) { return 1 }
        if expect(UInt8(ascii: "-")) { return -1 }
        return nil
    }
}
