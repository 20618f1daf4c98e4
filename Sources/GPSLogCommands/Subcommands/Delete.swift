// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// Deletes a session and its entries, or only the entries of a session that a time range, an area, a region or
    /// the outlier rules take.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a session, or the entries of one in a time range, an area or a region, or its outliers.",
            discussion: """
                Without --from, --to, --inside, --inside-region or --outliers, the whole session goes. With them, \
                the entries that meet all of them go (visits, pauses and region transitions in the range or area \
                too), in one transaction; the session's figures are counted again and the space goes back to the \
                file system. --dry-run says what would go. Asks first on a terminal unless --yes. A session being \
                recorded is refused.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The session: its name, id, or a unique id prefix.") var session: String
        @Option(help: "Only entries at or after this time (ISO 8601).") var from: String?
        @Option(help: "Only entries at or before this time (ISO 8601).") var to: String?
        @Option(
            help: ArgumentHelp(
                "Only entries inside this area, in degrees (GeoJSON's bbox order).",
                valueName: "west,south,east,north"))
        var inside: BoxOption?
        @Option(help: "Only entries inside this region (gpslog region list).") var insideRegion: String?
        @Flag(
            help: "Only outliers: jumps faster than --max-speed and back, 0°, 0°, accuracy worse than --max-accuracy.")
        var outliers = false
        @Option(help: "With --outliers: the fastest believable speed, km/h (default: 1000).")
        var maxSpeed: Double?
        @Option(help: "With --outliers: points whose accuracy is worse than this many metres are outliers too.")
        var maxAccuracy: Double?
        @Flag(help: "Say what would be deleted; delete nothing.") var dryRun = false
        @Flag(name: [.short, .long], help: "Do not ask for confirmation.") var yes = false

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            for (name, value) in [("--from", from), ("--to", to)] {
                if let value, Timestamp(iso8601: value) == nil {
                    throw ValidationError("\(name) must be ISO 8601, e.g. 2026-05-01T08:00:00Z.")
                }
            }
            if let maxSpeed, !(maxSpeed > 0 && maxSpeed.isFinite) {
                throw ValidationError("--max-speed must be a positive number of km/h.")
            }
            if let maxAccuracy, !(maxAccuracy > 0 && maxAccuracy.isFinite) {
                throw ValidationError("--max-accuracy must be a positive number of metres.")
            }
            if !outliers && (maxAccuracy != nil || maxSpeed != nil) {
                throw ValidationError("--max-speed and --max-accuracy go with --outliers.")
            }
        }

        /// --max-speed in km/h, or the default.
        private var speedLimit: Double { maxSpeed ?? OutlierRules.defaultMaxSpeed * 3.6 }

        /// Whether only some entries go.
        private var selective: Bool { from != nil || to != nil || inside != nil || insideRegion != nil || outliers }

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            let found = try store.resolveSession(session)
            try RecordingGuard.refuse(found, store: store, database: global.databasePath, doing: "delete from")
            guard selective else { return try deleteWhole(found, store: store) }
            var selection = EntrySelection(
                from: from.flatMap { Timestamp(iso8601: $0) }, to: to.flatMap { Timestamp(iso8601: $0) },
                box: inside?.box,
                outliers: outliers ? OutlierRules(maxSpeed: speedLimit / 3.6, maxAccuracy: maxAccuracy) : nil)
            if let insideRegion {
                let (box, test) = try RegionArea.selection(named: insideRegion, store: store)
                selection.inside = test
                if selection.box == nil { selection.box = box }
            }
            let planned = try store.deleteEntries(of: found, selection, dryRun: true)
            let what = CleaningText.describe(planned, maxSpeed: outliers ? speedLimit : nil)
            if dryRun || planned.entries + planned.events == 0 {
                print(
                    planned.entries + planned.events == 0
                        ? "Nothing to delete in '\(found.name.visible)'."
                        : "Would delete \(what) from '\(found.name.visible)'.")
                return
            }
            guard try confirm("Delete \(what) from '\(found.name.visible)' (\(found.shortID))?") else { return }
            let done = try store.deleteEntries(of: found, selection)
            print(
                "Deleted \(CleaningText.describe(done, maxSpeed: outliers ? speedLimit : nil)) from '\(found.name.visible)'."
            )
            CleaningText.printSpace(try store.giveSpaceBack())
        }

        private func deleteWhole(_ found: Session, store: Store) throws {
            let summary = try store.summary(of: found)
            if dryRun {
                print(
                    "Would delete '\(found.name.visible)' (\(found.shortID)) and its \(counted(summary.entryCount, "entry", "entries")); nothing was deleted."
                )
                return
            }
            guard
                try confirm(
                    "Delete '\(found.name.visible)' (\(found.shortID)) with its \(counted(summary.entryCount, "entry", "entries"))?"
                )
            else { return }
            let count = try store.deleteSession(id: found.id)
            print("Deleted '\(found.name.visible)' (\(found.shortID)) and its \(counted(count, "entry", "entries")).")
            CleaningText.printSpace(try store.giveSpaceBack())
        }

        /// True with --yes, or when the user says yes on a terminal.
        private func confirm(_ question: String) throws -> Bool {
            try CleaningText.confirm(question, yes: yes)
        }
    }
}
