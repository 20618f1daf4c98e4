// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel

extension FuzzTarget {
    /// Google location history (`Records.json`, a Semantic Location History month, the phone's Timeline export)
    /// through `GoogleLocationImporter` into the scratch store, a session per day as `import --split-by day` makes
    /// them (the streaming JSON reader, the three layouts, sessions found again when their day comes back). Every
    /// stored entry and visit is plausible and inside its session, or the refusal names the file.
    static func google(_ input: UnsafeRawBufferPointer) {
        checkGoogle(path: FuzzScratch.write(input, as: "input.json"))
    }

    static func checkGoogle(path: String) {
        let store = FuzzScratch.store
        var options = TrackImportOptions()
        options.splitByDay = TimeZone(identifier: "Europe/Amsterdam")
        let results: [ImportResult]
        do {
            results = try GoogleLocationImporter(options: options).importFile(path, into: store)
        } catch {
            FuzzInvariant.refusal(error, from: "GoogleLocationImporter", naming: path)
            return
        }
        do {
            for result in results {
                let session = try store.session(id: result.session.id)!
                FuzzInvariant.check(session == result.session, "GoogleLocationImporter said \(result.session)")
                FuzzInvariant.checkVisible(session.name.visible, what: "a session name")
                for v in try store.visits(of: session.id) {
                    FuzzInvariant.check(
                        Geo.isPlausiblePosition(latitude: v.latitude, longitude: v.longitude)
                            && v.horizontalAccuracy >= 0 && TimeWindow.current.contains(v.arrival)
                            && (v.departure ?? v.arrival) >= v.arrival,
                        "GoogleLocationImporter stored the visit \(v)")
                    FuzzInvariant.check(session.start <= v.arrival, "a visit before its session's start")
                }
                try store.entries(of: session.id).forEach { e in
                    FuzzInvariant.check(
                        session.start <= e.time && e.time <= session.end!, "an entry outside its session's time")
                }
            }
        } catch {
            fatalError("cannot read back the store: \(error)")
        }
        checkImported(results, in: store, from: "GoogleLocationImporter", plausible: true)
    }
}
