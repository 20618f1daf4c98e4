// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// One session's figures on one UTC day, as the DaySummaries and DayCells tables keep them (see
/// `Schema/024_day_summaries.sql`). Every figure is a count or a sum of whole numbers, so a kept row equals a recount.
struct DayFigures: Equatable, Sendable {
    var trackPoints = 0
    var lengthNanometres: Int64 = 0
    var movingMilliseconds: Int64 = 0
    /// The ground cells (`DayFigures.cell`) the track reached at ground speed.
    var cells: Set<Int64> = []

    /// A step at this speed or more counts as moving (m/s: 2.5 km/h, above a resting receiver's wander).
    static let movingSpeed = 0.7
    /// A longer step is a gap in the recording, not time moving (ms).
    static let longestMovingStep: Int64 = 300_000
    /// A point reached at this speed or more is in the air (m/s: 300 km/h).
    static let groundSpeed = 300 / 3.6
    /// A cell's side in degrees.
    static let cellDegrees = 0.02
    static let cellColumns: Int64 = 18_000

    /// The UTC day of a time in milliseconds (floored: days before 1970 are negative).
    static func day(of milliseconds: Int64) -> Int64 {
        milliseconds >= 0 ? milliseconds / 86_400_000 : -((-milliseconds + 86_399_999) / 86_400_000)
    }

    /// The cell holding a position.
    static func cell(latitude: Double, longitude: Double) -> Int64 {
        let row = Int64(((latitude + 90) / cellDegrees).rounded(.down))
        let column = min(cellColumns - 1, Int64(((longitude + 180) / cellDegrees).rounded(.down)))
        return row * cellColumns + max(0, column)
    }

    /// The centre of a cell.
    static func centre(ofCell cell: Int64) -> (latitude: Double, longitude: Double) {
        let row = cell / cellColumns
        let column = cell % cellColumns
        return ((Double(row) + 0.5) * cellDegrees - 90, (Double(column) + 0.5) * cellDegrees - 180)
    }

    /// Counts the track point `point`, reached from `previous` (nil for the track's first point); `lastCell` is
    /// the cell noted last (a run of points in one cell is looked up once).
    mutating func count(
        _ point: KeptSummary.TrackPoint, after previous: KeptSummary.TrackPoint?, lastCell: inout Int64
    ) {
        trackPoints += 1
        let step = DayFigures.step(into: point, from: previous)
        lengthNanometres += step.length
        movingMilliseconds += step.moving
        guard step.ground else { return }
        let cell = DayFigures.cell(latitude: point.latitude, longitude: point.longitude)
        if cell != lastCell {
            cells.insert(cell)
            lastCell = cell
        }
    }

    /// The step into `point` from `previous` (nil: the track's first point), as its day counts it: its length,
    /// its time moving, and whether `point` was reached on the ground (its cell counts).
    static func step(into point: KeptSummary.TrackPoint, from previous: KeptSummary.TrackPoint?) -> (
        length: Int64, moving: Int64, ground: Bool
    ) {
        guard let previous else { return (0, 0, true) }
        let length = KeptSummary.step(previous, point)
        let elapsed = point.time - previous.time
        guard elapsed > 0 else { return (length, 0, true) }
        let speed = (Double(length) / 1e9) / (Double(elapsed) / 1000)
        let moving = elapsed <= DayFigures.longestMovingStep && speed >= DayFigures.movingSpeed ? elapsed : 0
        return (length, moving, speed < DayFigures.groundSpeed)
    }

    /// Figures per day for the track points `track` (in track order) following `previous`.
    static func count(_ track: [KeptSummary.TrackPoint], after previous: KeptSummary.TrackPoint?) -> [Int64: DayFigures]
    {
        var counter = Counter(after: previous)
        // By index: no copy of each point.
        for i in track.indices { counter.add(track[i]) }
        return counter.finish()
    }

    /// Counts track points, given one at a time in track order, into their days (streamed: a recount of a session
    /// of millions of points holds one day's figures at a time, not the points).
    struct Counter {
        /// The days counted, but for the one being counted (`current`): read them with `finish()`.
        private var done: [Int64: DayFigures] = [:]
        private var current = DayFigures()
        private var previous: KeptSummary.TrackPoint?
        private var day: Int64 = .min
        private var end: Int64 = .min
        private var lastCell: Int64 = -1

        init(after previous: KeptSummary.TrackPoint?) { self.previous = previous }

        mutating func add(_ point: KeptSummary.TrackPoint) {
            if point.time >= end {
                // A new day: the figures are a plain variable while the day lasts, not a dictionary entry per point.
                if current.trackPoints > 0 { done[day] = current }
                day = DayFigures.day(of: point.time)
                end = (day + 1) * 86_400_000
                current = DayFigures()
                lastCell = -1
            }
            current.count(point, after: previous, lastCell: &lastCell)
            previous = point
        }

        /// Every day counted.
        func finish() -> [Int64: DayFigures] {
            var days = done
            if current.trackPoints > 0 { days[day] = current }
            return days
        }
    }
}
