// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogView

extension GPSLog {
    /// Distance, time moving, countries, towns, places and longest sessions over every session (or one year).
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show distance and time moving per day, week, month or year by mode, and where you have been.",
            discussion: """
                Read from figures kept per UTC day as entries are written, so it answers at once for years of \
                recording (`gpslog check` verifies them). Time moving counts steps of 2.5 km/h or more that last at \
                most 5 minutes. Countries and towns come from the places index (places:world): a place counts where \
                the track stopped (a visit) or passed on the ground, so a flight over a country does not count it. \
                --json prints every period, by day, ISO week, month and year.
                """)

        /// The table `--by` prints.
        enum Period: String, ExpressibleByArgument, CaseIterable {
            case day, week, month, year
        }

        @OptionGroup var global: GlobalOptions
        @Option(help: "Only this year (UTC).") var year: Int?
        @Option(help: "The table's period: day, week, month or year.") var by: Period = .month
        @Flag(help: "Print JSON instead of tables.") var json = false

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            var locate: Statistics.Locate?
            do {
                let lookup = try PlacesLookup.locate()
                locate = { lookup($0, $1) }
            } catch {
                FileHandle.standardError.write(
                    Data("gpslog: no countries or towns: \(error.localizedDescription)\n".utf8))
            }
            let stats = try store.statistics(year: year, locate: locate)
            if json {
                print(try JSONOutput.render(stats))
                return
            }
            print(render(stats))
        }

        /// The human tables.
        func render(_ s: Statistics) -> String {
            let moving = { (seconds: Double) in Format.duration(milliseconds: Int64(seconds * 1000)) }
            var out = "Distance \(Format.distance(s.distanceMetres)), moving \(moving(s.movingSeconds))"
            out += year.map { " in \($0)." } ?? "."
            let periods = [s.days, s.weeks, s.months, s.years][Period.allCases.firstIndex(of: by)!]
            if !periods.isEmpty {
                out +=
                    "\n\n"
                    + Format.table(
                        header: [by.rawValue.capitalized, "Mode", "Distance", "Moving"],
                        rows: periods.map {
                            [$0.period, $0.mode, Format.distance($0.distanceMetres), moving($0.movingSeconds)]
                        },
                        rightAligned: [2, 3])
            }
            // The first ten (a month's drive passes hundreds of towns); --json lists every one.
            let visited = { (list: [Statistics.Visited]) in
                list.prefix(10).map { "\($0.name.visible) (\($0.days) d)" }.joined(separator: ", ")
                    + (list.count > 10 ? " and \(list.count - 10) more (--json lists all)" : "")
            }
            if s.placesKnown {
                out += "\n\nCountries: " + (s.countries.isEmpty ? "none" : visited(s.countries))
                out += "\nTowns: " + (s.towns.isEmpty ? "none" : visited(s.towns))
            }
            out += "\n\nMost visited places\n"
            out +=
                s.topPlaces.isEmpty
                ? StatsPage.noVisits
                : Format.table(
                    header: ["Place", "Visits", "Stayed"],
                    rows: s.topPlaces.map { [$0.name, "\($0.visits)", moving($0.seconds)] }, rightAligned: [1, 2])
            if !s.longestTrips.isEmpty {
                out +=
                    "\n\nLongest sessions\n"
                    + Format.table(
                        header: ["Session", "Id", "Mode", "Distance"],
                        rows: s.longestTrips.map {
                            [$0.name, String($0.session.prefix(8)), $0.mode, Format.distance($0.distanceMetres)]
                        }, rightAligned: [3])
            }
            return out
        }
    }
}
