// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogConfig
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// A day's places and moves over every session (`gpslog timeline 2024-05-01`).
    struct Timeline: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a day's visits and the moves between them, in time order, over every session.",
            discussion: """
                Each visit shows its place (the name given with `gpslog visit rename`, else the address, else the \
                position), arrival and departure; each move its mode, distance and duration, from the track points \
                between two visits. Visits that touch or overlap at the same place are shown as one (a slow walk \
                makes a row of visits, each starting where the last ended): merged when reading, the stored visits \
                stay as they are. A visit's place is a circle of its accuracy, at least 50 m; two are at the same \
                place when their circles meet. The day runs from midnight to midnight in --timezone (UTC unless \
                given). Visits come from `record --visits` and imports that carry them (`gpslog visits SESSION` \
                lists a session's stored visits).
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The day, as YYYY-MM-DD (or today, yesterday).") var day: String
        @Option(help: "The day's time zone: UTC, an offset (+02:00) or a zone name (Europe/Amsterdam).")
        var timezone = "UTC"
        @Flag(help: "Print JSON instead of text: places and moves, times in UTC, metres and seconds.") var json = false

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            guard Self.zone(timezone) != nil else {
                throw ValidationError(
                    "--timezone '\(timezone.visible)' is not UTC, an offset like +02:00 or a zone like Europe/Amsterdam."
                )
            }
            guard resolvedDay() != nil else {
                throw ValidationError(
                    "The day '\(day.visible)' is not a date written YYYY-MM-DD (or today, yesterday).")
            }
        }

        /// `+02:00`, `-0530`, `UTC`, `Z` or a zone name.
        static func zone(_ text: String) -> TimeZone? {
            if text == "Z" || text.uppercased() == "UTC" { return TimeZone(identifier: "UTC") }
            if let m = text.wholeMatch(of: /([+-])(\d{2}):?(\d{2})/), let h = Int(m.2), let min = Int(m.3),
                h <= 14, min < 60
            {
                return TimeZone(secondsFromGMT: (m.1 == "-" ? -1 : 1) * (h * 3600 + min * 60))
            }
            return TimeZone(identifier: text)
        }

        /// The day asked as YYYY-MM-DD (today and yesterday in the time zone).
        func resolvedDay() -> String? {
            guard let zone = Self.zone(timezone) else { return nil }
            let shift = { (days: Double) -> String in
                let now = Date().addingTimeInterval(days * 86_400)
                let local = now.addingTimeInterval(Double(zone.secondsFromGMT(for: now)))
                return DayTimeline.day(of: Timestamp(milliseconds: Int64(local.timeIntervalSince1970 * 1000)))
            }
            switch day {
            case "today": return shift(0)
            case "yesterday": return shift(-1)
            default: return DayTimeline.midnight(of: day) == nil ? nil : day
            }
        }

        func run() throws {
            guard let day = resolvedDay(), let zone = Self.zone(timezone), let midnight = DayTimeline.midnight(of: day)
            else { throw ValidationError("The day '\(self.day.visible)' is not a date written YYYY-MM-DD.") }
            // The zone's offset at the day's noon (a day of a clock change is an hour shorter or longer: close enough).
            let noon = Date(timeIntervalSince1970: Double(midnight.milliseconds) / 1000 + 43_200)
            let offset = Int64(zone.secondsFromGMT(for: noon)) * 1000
            let from = Timestamp(milliseconds: midnight.milliseconds - offset)
            let to = Timestamp(milliseconds: from.milliseconds + 86_400_000)
            let store = try global.openStore()
            defer { store.close() }
            let timeline = try store.timeline(from: from, to: to)
            if json {
                print(try JSONOutput.render(timeline))
                return
            }
            let label = timezone.uppercased() == "UTC" ? "UTC" : Self.offsetText(offset)
            guard !timeline.isEmpty else {
                print("No data on \(day) (\(label)): no session has a track point or a visit that day.")
                return
            }
            print("\(day) (\(label))")
            for line in Self.lines(timeline, day: day, offset: offset) { print(line) }
        }

        /// `+02:00`.
        static func offsetText(_ milliseconds: Int64) -> String {
            let minutes = abs(milliseconds) / 60_000
            return (milliseconds < 0 ? "-" : "+") + String(format: "%02d:%02d", minutes / 60, minutes % 60)
        }

        /// The text lines: a visit and its place, a move indented under it.
        static func lines(_ timeline: DayTimeline, day: String, offset: Int64) -> [String] {
            let time = { (t: Timestamp) -> String in
                let local = Timestamp(milliseconds: t.milliseconds + offset).iso8601(fraction: false)
                let clock = String(local.dropFirst(11).prefix(8))
                return local.hasPrefix(day) ? clock : String(local.prefix(10)) + " " + clock
            }
            return timeline.items.map { item in
                switch item {
                case .visit(let p):
                    var place = p.name.map { $0.visible } ?? ""
                    if let address = p.address { place += (place.isEmpty ? "" : " - ") + address.visible }
                    if place.isEmpty { place = Format.position(latitude: p.latitude, longitude: p.longitude) }
                    let until =
                        p.departure.map {
                            "\(time($0))  (\(Format.duration(milliseconds: $0.milliseconds - p.arrival.milliseconds)))"
                        } ?? p.endWords(now: Timestamp(seconds: Date().timeIntervalSince1970), time: time)
                    let merged = p.visits.count > 1 ? ", \(p.visits.count) visits merged" : ""
                    return "\(time(p.arrival)) to \(until)  \(place)  [visit \(p.id)\(merged)]"
                case .move(let m):
                    let mode = m.mode?.rawValue ?? "move"
                    return "    \(time(m.start)) to \(time(m.end))  \(mode) \(Format.distance(m.distanceMetres)) in "
                        + Format.duration(milliseconds: m.end.milliseconds - m.start.milliseconds)
                }
            }
        }
    }
}

extension GPSLog.Timeline: Configurable {
    mutating func apply(_ settings: ResolvedSettings) throws(ConfigError) {
        try global.apply(settings)
        try settings.set(&timezone, "timezone")
        try settings.set(&json, "json")
    }
}
