// SPDX-License-Identifier: MIT
import GPSLogModel

/// The file importers' way to the sink: a file's entries kept as they are (no sampling: they carry their own times
/// and were sampled by whatever recorded them), written in batches into a new session inside the import's one
/// transaction, with one rule for repeats (`keepsOnePointPerInstant`).
public struct EntryWriter {
    /// What a finished session holds.
    public struct Written: Sendable {
        /// The session as finished: its start and end as stored.
        public var session: Session
        /// Rows stored.
        public var entries: Int
        /// Track points left out as repeats (see `add`).
        public var repeats: Int
    }

    /// Where the session and its rows go.
    public let sink: any SessionSink
    /// The session being written, created by `init`.
    public private(set) var session: Session?
    private var pending: [Entry] = []
    /// The ids of `pending`: not in the database yet, so `canKeep` asks here too (a file that repeats an EntryID).
    /// Made by the first `canKeep` of a batch: imports whose ids are all made (GPX, KML...) never ask, and hashing
    /// every id was 2 % of a GPX import's parsing thread (perf).
    private var pendingIDs: Set<String>?
    /// Ids `keeping` gave out since the last flush: looked up in the target when the batch is flushed (for a
    /// pipelined import, one wait for the batch before it per batch, not one per entry).
    /// Empty until an id is kept (room for a batch is made then), and given back by `release`: an import that keeps
    /// a session per day open holds hundreds of writers.
    private var unchecked: Set<String> = []
    /// Rows handed to the sink so far (flushed).
    public private(set) var stored = 0
    private var rng: SplitMix64
    private var lastTime: Timestamp?
    private var firstTime: Timestamp?
    /// Whether a track point at the same time and place as the track point before it is left out as a repeat (a
    /// phone's re-sent point, an export that lists a point twice). Two places at one time are both kept: OwnTracks
    /// times are whole seconds, and a phone reports twice in a second. Only for files whose every point carries its
    /// own time: the untimed points of a GPX, KML or GeoJSON are dated with one time for many places.
    public var keepsOnePointPerInstant = false
    /// The time of the last track point and the places of the track points at that time (`serve`'s rule: one point
    /// per time and place; a file in time order lists a repeat among the points of its instant).
    private var instant: (time: Timestamp, places: Set<ReceivedPlace>)?
    /// Track points left out as repeats.
    public private(set) var repeats = 0
    private var explicitEnd: Timestamp?
    private let keepsTrackPointIDs: Bool

    /// Creates the session now. `preferredID` is used when no session has it yet (a re-import of our own export
    /// keeps its ids); otherwise a random id. Entry ids without one of their own are seeded from the session id.
    public init(
        sink: any SessionSink, name: String, start: Timestamp, end: Timestamp? = nil, mode: TripMode?,
        preferredID: String?
    ) throws {
        self.sink = sink
        var id: String?
        if let preferredID, Identifier.isUUID(preferredID), try !sink.hasSession(id: preferredID.lowercased()) {
            id = preferredID.lowercased()
        }
        session = try sink.createSession(name: name, start: start, mode: mode, id: id, trip: false)
        rng = SplitMix64(seed: SplitMix64.seed(from: session!.id))
        explicitEnd = end
        keepsTrackPointIDs = sink.keepsTrackPointIDs
    }

    /// A new entry id for a point at `time`.
    public mutating func makeID(_ time: Timestamp) -> String { Identifier.uuidV7(time: time, using: &rng) }

    /// A new entry id for a point whose own id could not be kept: drawn again while taken. The ids are seeded from
    /// the session id, so a file that keeps its ids can hold the very id this draw makes (found by the fuzzer: a
    /// session export whose sessions repeat an entry).
    public mutating func makeUnusedID(_ time: Timestamp) throws -> String {
        while true {
            let id = makeID(time)
            if try canKeep(entryID: id) { return id }
        }
    }

    /// An id for a track point: none ("") when the target does not keep track points' ids (a GeoJSON convert).
    /// The random draws are made either way, so the ids that are made (the marks') are the same on every path.
    public mutating func makeTrackPointID(_ time: Timestamp) -> String {
        guard keepsTrackPointIDs else {
            Identifier.skipUUIDv7(using: &rng)
            return ""
        }
        return Identifier.uuidV7(time: time, using: &rng)
    }

    /// The id for a track point whose file gave it `own` (gpslog's CSV `entry_id`): `own` when it is a UUID not yet
    /// in this batch, else `makeTrackPointID(time)`. The random draws are the same either way, so that the ids made
    /// after it are the same on every path. Whether the database holds `own` already is asked at the flush, which
    /// draws again for one it does.
    public mutating func trackPointID(keeping own: String, at time: Timestamp) -> String {
        guard keepsTrackPointIDs else {
            Identifier.skipUUIDv7(using: &rng)
            return ""
        }
        return keeping(own, at: time)
    }

    /// The id for a mark whose file gave it `own` (GeoJSON's `id`): as `trackPointID(keeping:at:)`, drawn with
    /// `makeID` when `own` cannot be kept.
    public mutating func markID(keeping own: String, at time: Timestamp) -> String { keeping(own, at: time) }

    private mutating func keeping(_ own: String, at time: Timestamp) -> String {
        if pendingIDs == nil { pendingIDs = Self.ids(of: pending) }
        var id: String
        if !own.isEmpty, sink.keepsFileEntryIDs, let kept = Identifier.canonicalUUID(own),
            !pendingIDs!.contains(kept)
        {
            // Drawn but not made: formatting an id nobody uses was a tenth of a CSV import's parsing thread.
            Identifier.skipUUIDv7(using: &rng)
            id = kept
        } else {
            id = makeID(time)
        }
        while pendingIDs!.contains(id) { id = makeID(time) }
        if sink.keepsFileEntryIDs {
            if unchecked.capacity == 0 { unchecked.reserveCapacity(2048) }
            unchecked.insert(id)
        }
        return id
    }

    /// The ids of `entries`, with room for a whole batch.
    private static func ids(of entries: [Entry]) -> Set<String> {
        var ids = Set<String>(minimumCapacity: 2048)
        for entry in entries where !entry.id.isEmpty { ids.insert(entry.id) }
        return ids
    }

    /// Whether an entry id from the file can be kept (well-formed, and neither in the database nor in this import yet).
    public mutating func canKeep(entryID: String) throws -> Bool {
        guard let id = Identifier.canonicalUUID(entryID) else { return false }
        if pendingIDs == nil { pendingIDs = Self.ids(of: pending) }
        if pendingIDs!.contains(id) { return false }
        return try sink.entryIDIsFree(id)
    }

    /// Adds an entry. With `keepsOnePointPerInstant`, a track point at the time and place of a track point just
    /// before it (among those of its instant) is left out and counted in `repeats`: `serve` keeps one location per
    /// time and place too. Marks, POIs and heading changes are always kept; a point that starts a segment too.
    public mutating func add(_ entry: Entry) throws {
        if keepsOnePointPerInstant && !entry.marked && !entry.isHeadingChanged && !entry.isPOI {
            let place = ReceivedPlace(entry)
            if instant?.time != entry.time || entry.startsSegment {
                instant = (entry.time, [place])
            } else if !instant!.places.insert(place).inserted {
                repeats += 1
                return
            }
        }
        if !entry.id.isEmpty { pendingIDs?.insert(entry.id) }
        pending.append(entry)
        lastTime = max(lastTime ?? entry.time, entry.time)
        firstTime = min(firstTime ?? entry.time, entry.time)
        if pending.count >= 2000 { try flush() }
    }

    /// Hands the waiting rows to the sink, with new ids for the file's ids it holds already; done every 2,000 rows.
    public mutating func flush() throws {
        guard let session, !pending.isEmpty else { return }
        if !unchecked.isEmpty {
            // One question for the batch: a sink that writes behind (an import's pipelined sink) waits once for
            // the batches on their way, not once per id.
            let taken = try sink.takenEntryIDs(Array(unchecked))
            if !taken.isEmpty {
                for i in pending.indices where taken.contains(pending[i].id) {
                    pending[i].id = try makeUnusedID(pending[i].time)
                    pendingIDs?.insert(pending[i].id)
                }
            }
            unchecked.removeAll(keepingCapacity: true)
        }
        try sink.appendEntries(pending, to: session.id)
        stored += pending.count
        pending.removeAll(keepingCapacity: true)
        pendingIDs = nil
    }

    /// Flushes and hands back the batch's memory: for an import that keeps many sessions open at once (one per day),
    /// only the one being written holds a batch.
    public mutating func release() throws {
        try flush()
        pending = []
        pendingIDs = nil
        unchecked = []
    }

    /// Flushes and ends the session at the explicit end, else its newest entry; a session whose oldest entry is
    /// before its start (tracks of a merged file out of time order) starts at that entry.
    public mutating func finish() throws -> Written {
        try flush()
        var session = session!
        if let firstTime, firstTime < session.start {
            try sink.setSessionStart(id: session.id, start: firstTime)
            session.start = firstTime
        }
        let end = explicitEnd ?? max(lastTime ?? session.start, session.start)
        try sink.finishSession(id: session.id, end: max(end, session.start))
        session.end = max(end, session.start)
        return Written(session: session, entries: stored, repeats: repeats)
    }
}
