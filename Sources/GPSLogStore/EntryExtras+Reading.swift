// SPDX-License-Identifier: MIT
import GPSLogModel

extension EntryExtras {
    /// Sets the columns an Extras object holds on `e`. Read here rather than by one `json_extract` a column (16
    /// calls a row: exports of serve's Overland points took 45 % more CPU than before the lean rows). Reads what
    /// gpslog writes and what SQLite's JSON functions write (the view's triggers); numbers are read as Swift reads
    /// them, which is exact for the digits either writes. A malformed object (written into EntryRows by hand past the
    /// CHECKs) gives the members before the fault.
    static func read(_ extras: UnsafeBufferPointer<UInt8>, into e: inout Entry) {
        var p = Reader(bytes: extras)
        p.skipSpace()
        guard p.take(UInt8(ascii: "{")) else { return }
        while true {
            p.skipSpace()
            guard let key = p.string() else { return }
            p.skipSpace()
            guard p.take(UInt8(ascii: ":")) else { return }
            p.skipSpace()
            switch key {
            case "h": e.heading = p.number()
            case "ht": e.headingTime = p.number().flatMap { Int64(exactly: $0) }.map { Timestamp(milliseconds: $0) }
            case "l": e.label = p.string()
            case "sa": e.speedAccuracy = p.number()
            case "ca": e.courseAccuracy = p.number()
            case "m": e.motion = p.list()
            case "bs": e.batteryState = p.string().flatMap(BatteryState.init(rawValue:))
            case "bl": e.batteryLevel = p.number()
            case "d": e.deviceID = p.string()
            case "w": e.wifi = p.string()
            case "ss": e.startsSegment = p.number() == 1
            case "mo": e.monitoring = p.number().flatMap { Int(exactly: $0) }.flatMap(MonitoringMode.init(rawValue:))
            case "t": e.trigger = p.string().flatMap(ReportTrigger.init(rawValue:))
            case "r": e.inRegions = p.list()
            case "tg": e.tag = p.string()
            case "poi": e.isPOI = p.number() == 1
            case "a": e.attributes = p.strings()
            default: guard p.skipValue() else { return }
            }
            p.skipSpace()
            guard p.take(UInt8(ascii: ",")) else { return }
        }
    }

    /// A cursor over JSON text, for the few forms Extras holds: strings, numbers, arrays of strings.
    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
            return true
        }

        /// A number's token read by Swift (`9e999` is an infinity); nil for anything else, which is skipped.
        mutating func number() -> Double? {
            let start = at
            while at < bytes.count, Self.numberBytes.contains(bytes[at]) { at += 1 }
            guard at > start else {
                _ = skipValue()
                return nil
            }
            return Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self))
        }

        private static let numberBytes = Set("+-.0123456789eE".utf8)

        /// A JSON string, unescaped; nil (and the value skipped) for anything else.
        mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else {
                _ = skipValue()
                return nil
            }
            var start = at
            var out = ""
            while at < bytes.count {
                let b = bytes[at]
                if b == UInt8(ascii: "\"") {
                    out += String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
                    at += 1
                    return out
                }
                guard b == UInt8(ascii: "\\") else {
                    at += 1
                    continue
                }
                out += String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
                at += 1
                guard at < bytes.count else { return nil }
                let escape = bytes[at]
                at += 1
                switch escape {
                case UInt8(ascii: "b"): out += "\u{8}"
                case UInt8(ascii: "f"): out += "\u{C}"
                case UInt8(ascii: "n"): out += "\n"
                case UInt8(ascii: "r"): out += "\r"
                case UInt8(ascii: "t"): out += "\t"
                case UInt8(ascii: "u"):
                    guard var unit = hex4() else { return nil }
                    // A surrogate pair is one character in two escapes.
                    if (0xD800..<0xDC00).contains(unit), bytes.count - at >= 6, bytes[at] == UInt8(ascii: "\\"),
                        bytes[at + 1] == UInt8(ascii: "u")
                    {
                        at += 2
                        guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    }
                    out.unicodeScalars.append(Unicode.Scalar(unit) ?? "\u{FFFD}")
                default: out.unicodeScalars.append(Unicode.Scalar(escape))  // \" \\ \/
                }
                start = at
            }
            return nil
        }

        private mutating func hex4() -> UInt32? {
            guard bytes.count - at >= 4 else { return nil }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[at..<at + 4]), as: UTF8.self)
            at += 4
            return UInt32(text, radix: 16)
        }

        /// A list as Motion and InRegions hold it: an array of strings, or (written by hand, not compact) a string of
        /// its JSON text.
        mutating func list() -> [String]? {
            if at < bytes.count, bytes[at] == UInt8(ascii: "\"") { return string().flatMap(Store.decodeMotion) }
            guard take(UInt8(ascii: "[")) else {
                _ = skipValue()
                return nil
            }
            var items: [String] = []
            skipSpace()
            if take(UInt8(ascii: "]")) { return items }
            while true {
                skipSpace()
                guard let item = string() else { return nil }
                items.append(item)
                skipSpace()
                if take(UInt8(ascii: "]")) { return items }
                guard take(UInt8(ascii: ",")) else { return nil }
            }
        }

        /// An object of text values (`Entry.attributes`); nil (and the rest skipped) for anything else.
        mutating func strings() -> [String: String]? {
            guard take(UInt8(ascii: "{")) else {
                _ = skipValue()
                return nil
            }
            var values: [String: String] = [:]
            skipSpace()
            if take(UInt8(ascii: "}")) { return values.isEmpty ? nil : values }
            while true {
                skipSpace()
                guard let key = string() else { return nil }
                skipSpace()
                guard take(UInt8(ascii: ":")) else { return nil }
                skipSpace()
                guard let value = string() else { return nil }
                values[key] = value
                skipSpace()
                if take(UInt8(ascii: "}")) { return values }
                guard take(UInt8(ascii: ",")) else { return nil }
            }
        }

        /// Steps over one value of any kind (a key Extras does not know); false when the text ends first.
        mutating func skipValue() -> Bool {
            var depth = 0
            var inString = false
            while at < bytes.count {
                let b = bytes[at]
                if inString {
                    if b == UInt8(ascii: "\\") {
                        at += 1
                    } else if b == UInt8(ascii: "\"") {
                        inString = false
                        if depth == 0 {
                            at += 1
                            return true
                        }
                    }
                } else if b == UInt8(ascii: "\"") {
                    inString = true
                } else if b == UInt8(ascii: "[") || b == UInt8(ascii: "{") {
                    depth += 1
                } else if b == UInt8(ascii: "]") || b == UInt8(ascii: "}") {
                    if depth == 0 { return true }
                    depth -= 1
                    if depth == 0 {
                        at += 1
                        return true
                    }
                } else if depth == 0 && b == UInt8(ascii: ",") {
                    return true
                }
                at += 1
            }
            return false
        }
    }
}
