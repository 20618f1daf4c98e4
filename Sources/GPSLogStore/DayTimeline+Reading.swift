// SPDX-License-Identifier: MIT
import GPSLogModel

/// A day's timeline read from any store of sessions: the SQLite store, or PostgreSQL's reader (`serve --store`).
extension DayTimeline {
    /// The timeline of `from`..<`to` (a day) in `store` (SQLite or PostgreSQL) over the sessions `include` lets
    /// through: the places stayed at (visits
    /// that touch at the same place merged, see `DayTimeline`) and the moves between them, and, when `tracks`, each
    /// session's track for a map.
    ///
    /// Visits of the days either side are read too, so a place stayed at over midnight is merged whole.
    public static func read<S: SessionCatalog & SessionReader>(
        _ store: S, from: Timestamp, to: Timestamp, including include: (Session) -> Bool = { _ in true },
        tracks: Bool = false
    ) throws -> DayTimeline {
        let day: Int64 = 86_400_000
        let (wideFrom, wideTo) = (
            Timestamp(milliseconds: from.milliseconds - day), Timestamp(milliseconds: to.milliseconds + day)
        )
        let sessions = try store.sessions().filter {
            include($0) && $0.start < wideTo && ($0.end.map { $0 >= wideFrom } ?? true)
        }
        var visits: [(visit: Visit, session: String)] = []
        for s in sessions {
            for v in try store.visits(of: s.id)
            where v.arrival < wideTo && (v.departure.map { $0 >= wideFrom } ?? true) {
                visits.append((v, s.id))
            }
        }
        let ends = Dictionary(sessions.compactMap { s in s.end.map { (s.id, $0) } }, uniquingKeysWith: max)
        let places = DayTimeline.places(visits, sessionEnds: ends).filter {
            $0.arrival < to && ($0.departure.map { $0 > from } ?? true)
        }
        let inDay = sessions.filter { $0.start < to && ($0.end.map { $0 >= from } ?? true) }
        var items: [DayTimeline.Item] = []
        // The moves: before the first place, between each two, after the last; a span without two track points is none.
        var start = from
        for place in places {
            if let move = try move(store, inDay, from: start, to: place.arrival) { items.append(.move(move)) }
            items.append(.visit(place))
            start = max(start, place.departure ?? to)
        }
        if let move = try move(store, inDay, from: start, to: to) { items.append(.move(move)) }
        var lines: [DayTimeline.Track]?
        if tracks {
            lines = try inDay.map {
                DayTimeline.Track(session: $0.id, lines: try track(store, of: $0, from: from, to: to))
            }
            .filter { !$0.lines.isEmpty }
        }
        return DayTimeline(from: from, to: to, items: items, tracks: lines)
    }

    /// The track points of `sessions` from `from` to `to` (excluded) as a move; nil for fewer than two.
    static func move<S: SessionReader>(_ store: S, _ sessions: [Session], from: Timestamp, to: Timestamp) throws
        -> DayTimeline.Move?
    {
        guard from < to else { return nil }
        let last = Timestamp(milliseconds: to.milliseconds - 1)
        var (first, end): (Timestamp?, Timestamp?) = (nil, nil)
        var (total, points) = (0.0, 0)
        var farthest: (distance: Double, mode: TripMode?) = (-1, nil)
        for s in sessions {
            var previous: Entry?
            var distance = 0.0
            try store.entries(of: s.id, from: from, to: last, fields: .position).forEach { e in
                guard !e.marked && !e.isHeadingChanged else { return }
                if let p = previous {
                    distance += Geo.distance(lat1: p.latitude, lon1: p.longitude, lat2: e.latitude, lon2: e.longitude)
                }
                previous = e
                points += 1
                first = min(first ?? e.time, e.time)
                end = max(end ?? e.time, e.time)
            }
            total += distance
            if previous != nil, distance > farthest.distance { farthest = (distance, s.mode) }
        }
        guard points >= 2, let first, let end, first < end else { return nil }
        return DayTimeline.Move(start: first, end: end, distanceMetres: total, mode: farthest.mode, points: points)
    }

    /// A session's track points from `from` to `to` (excluded), at most `maxDayTrackPoints` kept evenly, as runs
    /// broken at segment starts.
    static func track<S: SessionReader>(_ store: S, of session: Session, from: Timestamp, to: Timestamp) throws
        -> [[[Double]]]
    {
        let last = Timestamp(milliseconds: to.milliseconds - 1)
        let count = try store.entryCount(of: session.id, from: from, to: last)
        let step = max(1, (count + Store.maxDayTrackPoints - 1) / Store.maxDayTrackPoints)
        var lines: [[[Double]]] = []
        var index = 0
        try store.entries(of: session.id, from: from, to: last, fields: .position).forEach { e in
            guard !e.marked && !e.isHeadingChanged else { return }
            defer { index += 1 }
            if e.startsSegment || lines.isEmpty { lines.append([]) }
            // A segment's first point is kept whatever the step, so the runs join up as recorded.
            guard index % step == 0 || lines[lines.count - 1].isEmpty else { return }
            let round = { (x: Double) in (x * 1e6).rounded() / 1e6 }
            lines[lines.count - 1].append([round(e.latitude), round(e.longitude)])
        }
        return lines.filter { !$0.isEmpty }
    }
}
