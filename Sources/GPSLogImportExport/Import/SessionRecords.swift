// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogPipeline
import GPSLogStore

/// Region transitions and visits read from a file of points (gpslog's GPX, GeoJSON and KML exports write them beside
/// the track), kept until the file's sessions are made and then stored with the session they fall in: the one whose
/// span holds their time (gpslog's `session` id first, when the file names it), else the nearest. A few a day: they
/// are kept in memory.
struct SessionRecords {
    private var transitions: [(Transition, session: String?)] = []
    private var visits: [(Visit, session: String?)] = []

    var isEmpty: Bool { transitions.isEmpty && visits.isEmpty }

    /// A transition read at `point` (its name the region's): the region's centre and radius are not in the file.
    mutating func addTransition(at point: Entry, event: RegionEvent, regionID: String? = nil, session: String? = nil) {
        let region = Region(
            name: (point.label ?? "").truncated(to: TextLimit.label), latitude: point.latitude,
            longitude: point.longitude, radius: 0, regionID: regionID ?? "", created: point.time)
        var t = Transition(
            region: region, event: event, time: point.time, latitude: point.latitude, longitude: point.longitude,
            horizontalAccuracy: point.horizontalAccuracy, trigger: nil)
        t.regionIsKnown = false
        transitions.append((t, session))
    }

    mutating func addVisit(_ visit: Visit, session: String? = nil) { visits.append((visit, session)) }

    /// Stores each with its session among `results`; says how many in a note.
    func store(in results: [ImportResult], target: any SessionSink, notes: (String) -> Void) throws {
        guard !results.isEmpty, !isEmpty else { return }
        func session(_ time: Timestamp, _ id: String?) -> String {
            if let id, let named = results.first(where: { $0.session.id == id }) { return named.session.id }
            func distance(_ r: ImportResult) -> Int64 {
                let start = r.session.start.milliseconds
                let end = (r.session.end ?? r.session.start).milliseconds
                return time.milliseconds < start ? start - time.milliseconds : max(0, time.milliseconds - end)
            }
            return results.min { distance($0) < distance($1) }!.session.id
        }
        for (t, id) in transitions { try target.addTransition(t, to: session(t.time, id)) }
        for (v, id) in visits { try target.addVisit(v, to: session(v.arrival, id)) }
        guard target.keepsFileEntryIDs else { return }  // the database: a convert keeps neither
        var kept: [String] = []
        if !transitions.isEmpty { kept.append("\(transitions.count) region transitions (gpslog events)") }
        if !visits.isEmpty { kept.append("\(visits.count) visits (gpslog visits)") }
        notes("imported " + kept.joined(separator: " and "))
    }
}
