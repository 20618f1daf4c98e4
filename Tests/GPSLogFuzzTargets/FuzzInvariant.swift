// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogStore
import GPSLogXML

/// The invariants every target checks. A broken one stops the process with `fatalError` and a message saying which
/// (libFuzzer saves the input as a crash; the replay tests fail on it the same way).
enum FuzzInvariant {
    /// Stops with `message` unless `condition` holds.
    static func check(
        _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
        line: UInt = #line
    ) {
        if !condition() { fatalError("fuzz invariant broken: \(message())", file: file, line: line) }
    }

    /// What an accepted entry must be, whatever the reader.
    ///
    /// - Parameters:
    ///   - entry: the entry the reader accepted.
    ///   - reader: the reader's name, for the message.
    ///   - plausibleTime: the reader promises a time inside `TimeWindow.current` (the NMEA decoder and the payloads).
    ///   - plausiblePosition: the reader promises a position other than 0, 0 (the payloads).
    static func accepted(_ entry: Entry, from reader: String, plausibleTime: Bool, plausiblePosition: Bool) {
        check(
            Geo.isValidPosition(latitude: entry.latitude, longitude: entry.longitude),
            "\(reader) accepted the position \(entry.latitude), \(entry.longitude)")
        var stored = entry
        if stored.id.isEmpty { stored.id = placeholderID }  // track points of a convert carry no id
        if let rule = Store.brokenRule(stored) {
            check(false, "\(reader) accepted an entry the store refuses: \(rule)")
        }
        let text = entry.time.iso8601()
        check(
            Timestamp(iso8601: text) == entry.time,
            "\(reader) accepted the time \(entry.time.milliseconds) ms, written as \(text), which does not read back")
        if plausibleTime {
            check(
                TimeWindow.current.contains(entry.time), "\(reader) accepted the time \(text), outside 1980 to tomorrow"
            )
        }
        if plausiblePosition {
            check(
                Geo.isPlausiblePosition(latitude: entry.latitude, longitude: entry.longitude),
                "\(reader) accepted 0, 0 (no position)")
        }
    }

    /// What a refusal must be: an `ImportError` (or `XMLError`) whose words name `place` (the file, or the request).
    /// Nothing the input says may reach them unescaped (no control character: no input can forge a line of a log or
    /// send escapes to a terminal); only libxml2's and the JSON parser's own words may run to a second line.
    static func refusal(_ error: any Error, from reader: String, naming place: String) {
        let text: String
        var ownLines = false
        switch error {
        case let e as ImportError:
            text = e.errorDescription ?? ""
            if case .malformed = e { ownLines = true }
        case let e as XMLError:
            text = e.description
            ownLines = true
        default: fatalError("fuzz invariant broken: \(reader) threw an undocumented \(type(of: error)): \(error)")
        }
        check(text.contains(place), "\(reader) refused without naming \(place): \(text)")
        check(
            (ownLines ? text.visibleKeepingLines : text.visible) == text,
            "\(reader)'s refusal holds a control character: \(text.visible)")
    }

    /// Stops when `text` holds a control character (C0, DEL, C1, line separators or bidirectional overrides).
    static func checkVisible(_ text: String, what: String) {
        check(text.visible == text, "\(what) holds a control character: \(text.visible)")
    }

    /// A well-formed UUID for entries that have none yet.
    static let placeholderID = "00000000-0000-7000-8000-000000000000"
}
