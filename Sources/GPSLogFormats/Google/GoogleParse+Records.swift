// SPDX-License-Identifier: MIT
import GPSLogModel

/// Takeout's `Records.json`: `locations`, one record per location.
extension GoogleParse {
    mutating func records() throws {
        try array("'locations' is not an array") { try $0.record() }
    }

    /// One location record (its `{` read): a location's members (`locationMember`: `latitudeE7`, `timestamp`,
    /// `accuracy`, `velocity`, ...), and the first `activity` guess as Overland's motion. `source` (`WIFI`, `CELL`,
    /// `GPS`) has no column; Wi-Fi scans and the rest are skipped.
    private mutating func record() throws {
        var f = LocationFields()
        while try json.next() != .objectEnd {
            if try locationMember(&f) { continue }
            if json.textEquals("activity") {
                f.entry.motion = try activity().map { [$0] }
            } else {
                try json.skipValue()
            }
        }
        try report(f)
    }

    /// A record's `activity`: guesses at slightly different times, each a list of types with their confidence. The
    /// first guess's most confident type, as Overland's motion word (nil when it names none).
    private mutating func activity() throws -> String? {
        let event = try json.next()
        if event == .null { return nil }
        guard event == .arrayStart else { throw json.malformed("'activity' is not an array") }
        var best: (type: [UInt8], confidence: Double)?
        var first = true
        while true {
            let guess = try json.next()
            if guess == .arrayEnd { break }
            guard guess == .objectStart else { throw json.malformed("an activity guess is an object") }
            guard first else {
                try json.skipRest()
                continue
            }
            first = false
            while try json.next() != .objectEnd {
                guard json.textEquals("activity") else {
                    try json.skipValue()
                    continue
                }
                try array("'activity' is not an array") { parse in
                    var type: [UInt8]?
                    var confidence = 0.0
                    while try parse.json.next() != .objectEnd {
                        if parse.json.textEquals("type") {
                            type = try parse.text().map { Array($0.utf8) }
                        } else if parse.json.textEquals("confidence") {
                            confidence = try parse.number() ?? 0
                        } else {
                            try parse.json.skipValue()
                        }
                    }
                    if let type, confidence > best?.confidence ?? -1 { best = (type, confidence) }
                }
            }
        }
        return best.flatMap { Self.motion($0.type) }
    }
}
