// SPDX-License-Identifier: MIT
import GPSLogModel

/// What `gpslog stats` and the web view's /stats show: distance and time moving per day, week, month and year by
/// trip mode, the countries and towns visited, the most visited places and the longest sessions, from the kept
/// per-day figures (`Store.sessionDays`) and the visits.
public struct Statistics: Sendable, Encodable, Equatable {
    /// Distance and time moving in one period, for one mode ("none" for sessions without a mode).
    public struct Period: Sendable, Encodable, Equatable {
        /// `2024-05-01`, `2024-W18` (ISO week), `2024-05` or `2024`.
        public var period: String
        /// The trip mode (`Session.mode`), or "none".
        public var mode: String
        /// Metres.
        public var distanceMetres: Double
        /// Seconds moving.
        public var movingSeconds: Double
    }

    /// A country or a town, and on how many days the track stopped there or passed it on the ground.
    public struct Visited: Sendable, Encodable, Equatable {
        /// The country code, or the town as "Name, CC".
        public var name: String
        /// Distinct UTC days.
        public var days: Int
    }

    /// A place stayed at (visits grouped by their address, else by the nearest town, else by position).
    public struct Place: Sendable, Encodable, Equatable {
        /// The address, town or position.
        public var name: String
        /// How many visits.
        public var visits: Int
        /// The time stayed, all visits together (seconds).
        public var seconds: Double
    }

    /// A session and its distance within the period asked.
    public struct Trip: Sendable, Encodable, Equatable {
        /// The session's id.
        public var session: String
        /// The session's name.
        public var name: String
        /// The trip mode, or "none".
        public var mode: String
        /// The session's start, ISO 8601.
        public var start: String
        /// Metres within the period.
        public var distanceMetres: Double
    }

    /// Where a position is: its country code and town (nil when the places index knows nothing near).
    public typealias Locate = (_ latitude: Double, _ longitude: Double) -> (country: String, town: String?)?

    /// Metres in all.
    public var distanceMetres = 0.0
    /// Seconds moving in all.
    public var movingSeconds = 0.0
    /// Per UTC day and mode.
    public var days: [Period] = []
    /// Per ISO week and mode.
    public var weeks: [Period] = []
    /// Per month and mode.
    public var months: [Period] = []
    /// Per year and mode.
    public var years: [Period] = []
    /// Countries, by country code, most days first.
    public var countries: [Visited] = []
    /// Towns within 10 km of the track, most days first.
    public var towns: [Visited] = []
    /// The most visited places, most visits first.
    public var topPlaces: [Place] = []
    /// The longest sessions within the period, longest first.
    public var longestTrips: [Trip] = []
    /// Whether countries and towns were looked up (false without a places index).
    public var placesKnown = false

    /// Adds up the per-day figures of `sessions` (others left out) and their visits.
    /// - Parameters:
    ///   - days: the kept per-day figures (`Store.sessionDays`).
    ///   - sessions: the sessions to count, by key.
    ///   - visits: the visits of those sessions within the period, with the session's key.
    ///   - locate: the places index lookup; nil leaves countries and towns empty.
    ///   - top: how many places and trips to list.
    public init(
        days: [SessionDay], sessions: [Int64: Session], visits: [(sessionKey: Int64, visit: Visit)], locate: Locate?,
        top: Int = 10
    ) {
        var periods: [Int: [String: Period]] = [:]  // 0 day, 1 week, 2 month, 3 year
        var tripDistance: [Int64: Double] = [:]
        var countryDays: [String: Set<Int64>] = [:]
        var townDays: [String: Set<Int64>] = [:]
        var located: [String: (country: String, town: String?)?] = [:]
        func place(_ latitude: Double, _ longitude: Double) -> (country: String, town: String?)? {
            guard let locate else { return nil }
            let key = "\(latitude),\(longitude)"
            if let known = located[key] { return known }
            let answer = locate(latitude, longitude)
            located[key] = answer
            return answer
        }
        func note(_ latitude: Double, _ longitude: Double, day: Int64) {
            guard let found = place(latitude, longitude) else { return }
            countryDays[found.country, default: []].insert(day)
            if let town = found.town { townDays[town, default: []].insert(day) }
        }
        for d in days {
            guard let session = sessions[d.sessionKey] else { continue }
            let mode = session.mode?.rawValue ?? "none"
            distanceMetres += d.distance
            movingSeconds += d.movingSeconds
            tripDistance[d.sessionKey, default: 0] += d.distance
            for (i, name) in CivilDay.periods(of: d.day).enumerated() {
                let key = name + " " + mode
                var p = periods[i]?[key] ?? Period(period: name, mode: mode, distanceMetres: 0, movingSeconds: 0)
                p.distanceMetres += d.distance
                p.movingSeconds += d.movingSeconds
                periods[i, default: [:]][key] = p
            }
            for g in d.groundPlaces { note(g.latitude, g.longitude, day: d.day) }
        }
        var stays: [String: Place] = [:]
        for (key, v) in visits where sessions[key] != nil {
            let day = CivilDay.day(ofMilliseconds: v.arrival.milliseconds)
            note(v.latitude, v.longitude, day: day)
            let name =
                v.address ?? place(v.latitude, v.longitude)?.town
                ?? Statistics.position(latitude: v.latitude, longitude: v.longitude)
            var p = stays[name] ?? Place(name: name, visits: 0, seconds: 0)
            p.visits += 1
            p.seconds += v.departure.map { Double($0.milliseconds - v.arrival.milliseconds) / 1000 } ?? 0
            stays[name] = p
        }
        func ordered(_ i: Int) -> [Period] {
            (periods[i] ?? [:]).values.sorted { ($0.period, $0.mode) < ($1.period, $1.mode) }
        }
        (self.days, weeks, months, years) = (ordered(0), ordered(1), ordered(2), ordered(3))
        placesKnown = locate != nil
        countries = countryDays.map { Visited(name: $0.key, days: $0.value.count) }
            .sorted { ($1.days, $0.name) < ($0.days, $1.name) }
        towns = townDays.map { Visited(name: $0.key, days: $0.value.count) }.sorted {
            ($1.days, $0.name) < ($0.days, $1.name)
        }
        topPlaces = Array(
            stays.values.sorted { ($1.visits, $1.seconds, $0.name) < ($0.visits, $0.seconds, $1.name) }.prefix(top))
        longestTrips = tripDistance.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(top).compactMap {
            guard let s = sessions[$0.key] else { return nil }
            return Trip(
                session: s.id, name: s.name, mode: s.mode?.rawValue ?? "none", start: s.start.iso8601(),
                distanceMetres: $0.value)
        }
    }
}

extension Statistics {
    /// A position as text, for a place without a name.
    static func position(latitude: Double, longitude: Double) -> String {
        func round3(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
        return "\(round3(latitude)), \(round3(longitude))"
    }
}

/// UTC calendar days as whole days since 1970-01-01 (proleptic Gregorian; H. Hinnant's civil-date algorithms).
public enum CivilDay {
    /// The day of a time in milliseconds since 1970.
    public static func day(ofMilliseconds ms: Int64) -> Int64 { DayFigures.day(of: ms) }

    /// The day number of a date.
    public static func day(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date of a day number.
    public static func date(of day: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = day + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// The day's names as a day, an ISO week, a month and a year: `2024-05-01`, `2024-W18`, `2024-05`, `2024`.
    public static func periods(of day: Int64) -> [String] {
        let (y, m, d) = date(of: day)
        // Monday 0 ... Sunday 6 (1970-01-01 was a Thursday); the ISO week's year is its Thursday's.
        let weekday = ((day + 3) % 7 + 7) % 7
        let thursday = day - weekday + 3
        let weekYear = date(of: thursday).year
        let week = (thursday - self.day(year: weekYear, month: 1, day: 1)) / 7 + 1
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return ["\(y)-\(two(m))-\(two(d))", "\(weekYear)-W\(two(week))", "\(y)-\(two(m))", "\(y)"]
    }
}
