// SPDX-License-Identifier: MIT
import GPSLogModel

/// Times that a device writes for "no time": any time before 1980 (1970-01-01, a clock never set;
/// 1901-12-13T20:45:52Z, the signed 32-bit minimum of seconds, which GPSBabel writes for a point without one), and
/// exactly the signed or unsigned 32-bit maximum (2038-01-19T03:14:07Z, 2106-02-07T06:28:15Z). The XML importers
/// (GPX, KML, TCX) read a point carrying one as untimed, dated as their other untimed points are, and say so once;
/// a time that is not one of these and still past tomorrow is refused as before.
struct SentinelTimes {
    /// Times read as none so far.
    private(set) var count = 0
    /// The first of them as written, shown in the note.
    private var first = ""

    private static let int32Max: Int64 = 2_147_483_647_000
    private static let uint32Max: Int64 = 4_294_967_295_000

    /// True when `time` stands for no time (see the type).
    static func isSentinel(_ time: Timestamp, window: TimeWindow) -> Bool {
        time < window.earliest || time.milliseconds == int32Max || time.milliseconds == uint32Max
    }

    /// True, with the time counted, when `time` stands for no time; `written` is its text as the file has it.
    mutating func take(_ time: Timestamp, window: TimeWindow, written: @autoclosure () -> String) -> Bool {
        guard Self.isSentinel(time, window: window) else { return false }
        if count == 0 { first = written().truncated(to: 40).visible }
        count += 1
        return true
    }

    /// The note for the user, when any was read: how many `things` (e.g. "point time(s)"), which, and `then`, what
    /// became of their points.
    func note(_ things: String, then: String) -> String? {
        guard count > 0 else { return nil }
        return "read \(count) \(things) before 1980 or at a 32-bit limit (first '\(first)', a device's \"no time\") "
            + "as no time: \(then)"
    }
}
