// SPDX-License-Identifier: MIT
import GPSLogModel

extension Store {
    /// The most points a day's track keeps for the day page's map, per session (evenly thinned).
    public static let maxDayTrackPoints = 4_000

    /// The timeline of `from`..<`to` (a day) over the sessions `include` lets through: see `DayTimeline.read`.
    public func timeline(
        from: Timestamp, to: Timestamp, including include: (Session) -> Bool = { _ in true }, tracks: Bool = false
    ) throws -> DayTimeline {
        try DayTimeline.read(self, from: from, to: to, including: include, tracks: tracks)
    }

    /// The place `gpslog timeline` shows a stored visit in: the visit and those merged with it (see `DayTimeline`),
    /// over every session; nil when no visit has this key.
    public func timelinePlace(containing key: Int64) throws -> DayTimeline.Place? {
        guard let (visit, _) = try self.visit(key: key) else { return nil }
        // A week either side: a run of touching visits longer than that is not a stay.
        let week: Int64 = 7 * 86_400_000
        let (from, to) = (visit.arrival.milliseconds - week, visit.arrival.milliseconds + week)
        var visits: [(visit: Visit, session: String)] = []
        var ends: [String: Timestamp] = [:]
        for s in try sessions() where s.start.milliseconds < to && (s.end.map { $0.milliseconds >= from } ?? true) {
            ends[s.id] = s.end
            for v in try self.visits(of: s.id) where (from..<to).contains(v.arrival.milliseconds) {
                visits.append((v, s.id))
            }
        }
        return DayTimeline.places(visits, sessionEnds: ends).first { $0.visits.contains(key) }
    }
}
