// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSampling
import GPSLogStore

/// Feeds fixes and headings through a `FixGate` and a `Sampler` into a session, buffering new rows until `flush()`.
///
/// The recorder and every importer write through this type, so a replayed log and a live recording of the same
/// fixes give the same rows. The session is created at the first stored fix, which gives it its start time (and,
/// with a template, its name). With a `SessionSplitter` (the recorder's `--split`), a fix that starts a new session
/// ends the current one and opens the next; the gate and the id generator carry on.
public struct SessionWriter {
    public let store: Store
    public let naming: SessionNaming
    public let mode: TripMode?
    public private(set) var sampler: Sampler
    public private(set) var gate: FixGate
    public private(set) var splitter: SessionSplitter?
    /// Sessions ended by a split so far.
    public private(set) var splits = 0
    /// The session the last split ended, and why.
    public private(set) var splitOff: (session: Session, reason: SplitReason)?
    /// The gate's counts when the current session began (a session keeps its own counts).
    private var droppedBefore = DroppedFixes()
    /// Nil until the first fix is stored.
    public private(set) var session: Session?
    private let fixedSessionID: String?
    private var pending: [Entry] = []
    /// The last flushed location row and the instance count it must be given at the next flush.
    private var flushedLast: (key: Int64, count: Int)?
    private var flushedLastNeedsUpdate = false

    /// Gives a row its address as it is stored, when one is at hand without waiting (the recorder's geocoder: cache
    /// hits, offline providers); nil: rows are stored as they come, and get their address later, if ever.
    public var addresses: ((Entry) -> String?)?

    /// Rows committed so far.
    public private(set) var storedEntries = 0
    /// Marks stored so far.
    public private(set) var markCount = 0
    /// Length of the track so far, in metres.
    public private(set) var distance = 0.0
    /// Time of the newest stored row.
    public private(set) var lastEntryTime: Timestamp?
    private var lastTrackPoint: (latitude: Double, longitude: Double)?

    /// - Parameters:
    ///   - sessionID: a fixed id for the session (deterministic imports); the entry ids are then seeded from it.
    ///   - splits: when to start a new session (the recorder's); nil: one session.
    public init(
        store: Store, naming: SessionNaming, mode: TripMode? = nil, policy: SamplingPolicy, splits: SplitRules? = nil,
        sessionID: String? = nil
    ) {
        self.store = store
        self.naming = naming
        self.mode = mode
        fixedSessionID = sessionID
        sampler = Sampler(policy: policy, seed: sessionID.map(SplitMix64.seed(from:)))
        gate = FixGate(maxSpeed: policy.maxSpeed)
        splitter = splits.flatMap { $0.splits ? SessionSplitter(rules: $0, policy: policy) : nil }
    }

    /// A writer of one session named `name`.
    public init(store: Store, name: String, mode: TripMode? = nil, policy: SamplingPolicy, sessionID: String? = nil) {
        self.init(store: store, naming: .fixed(name), mode: mode, policy: policy, sessionID: sessionID)
    }

    /// The current session's name; before its first fix, what it will be named after.
    public var name: String {
        if let session { return session.name }
        switch naming {
        case .fixed(let name): return name
        case .template(let template): return template.pattern
        }
    }

    /// Rows waiting for the next flush.
    public var pendingCount: Int { pending.count }

    /// What the gate refused in the current session.
    public var dropped: DroppedFixes { gate.dropped - droppedBefore }

    /// Takes a fix: through the gate, then (starting a new session first when the splitter says so) the sampler.
    /// Creates the session at the first stored fix.
    public mutating func add(_ fix: Fix) throws {
        var gate = self.gate
        defer { self.gate = gate }
        try gate.admit(fix) { fix, moved, dropped in
            if moved { sampler.startOver() }
            if let reason = splitter?.check(fix), session != nil { try split(reason, dropped: dropped) }
            try apply(sampler.add(fix))
        }
    }

    /// Ends the current session and gets ready for the next, which the fix being added opens.
    private mutating func split(_ reason: SplitReason, dropped: DroppedFixes) throws {
        try finish(dropped: dropped)
        splitOff = session.map { ($0, reason) }
        splits += 1
        droppedBefore = dropped
        session = nil
        flushedLast = nil
        flushedLastNeedsUpdate = false
        storedEntries = 0
        markCount = 0
        distance = 0
        lastEntryTime = nil
        lastTrackPoint = nil
        sampler.startOver()
    }

    /// Samples a heading reading.
    @discardableResult
    public mutating func add(_ reading: HeadingReading) throws -> SampleDecision {
        let decision = sampler.add(reading)
        try apply(decision)
        return decision
    }

    /// Queues a mark at the freshest fix; flush to store it. Nil before the first fix.
    public mutating func mark(label: String?) throws -> Entry? {
        guard var entry = sampler.mark(label: label) else { return nil }
        try ensureSession(start: entry.time)
        entry.label = label.flatMap { $0.isEmpty ? nil : $0 }
        pending.append(entry)
        markCount += 1
        lastEntryTime = max(lastEntryTime ?? entry.time, entry.time)
        return entry
    }

    private mutating func ensureSession(start: Timestamp) throws {
        if session == nil {
            // A fixed id is for one session (an import): the sessions a split opens get their own.
            let id = splits == 0 ? fixedSessionID : nil
            session = try store.createSession(name: naming.name(at: start), start: start, mode: mode, id: id)
        }
    }

    private mutating func apply(_ decision: SampleDecision) throws {
        switch decision {
        case .newEntry(let entry):
            try ensureSession(start: entry.time)
            pending.append(entry)
            lastEntryTime = max(lastEntryTime ?? entry.time, entry.time)
            if !entry.isHeadingChanged && !entry.marked {
                if let last = lastTrackPoint {
                    distance += Geo.distance(
                        lat1: last.latitude, lon1: last.longitude, lat2: entry.latitude, lon2: entry.longitude)
                }
                lastTrackPoint = (entry.latitude, entry.longitude)
            }
        case .samePlace(let count):
            if let i = pending.lastIndex(where: { !$0.isHeadingChanged && !$0.marked }) {
                pending[i].instanceCount = count
            } else if let last = flushedLast {
                flushedLast = (last.key, count)
                flushedLastNeedsUpdate = true
            }
        case .dropped:
            break
        }
    }

    /// Stores the pending rows: inside the caller's transaction when one is open (imports), else in one of its own.
    /// - Returns: the rows stored, with their keys.
    @discardableResult
    public mutating func flush() throws -> [Entry] {
        guard let session, !pending.isEmpty || flushedLastNeedsUpdate else { return [] }
        // Before the transaction: the lookups read the cache, and need not hold the write lock.
        if let addresses {
            for i in pending.indices where pending[i].address == nil { pending[i].address = addresses(pending[i]) }
        }
        let batch = pending
        let update = flushedLastNeedsUpdate ? flushedLast : nil
        let write = { [store] () throws -> [Int64] in
            if let update { try store.setInstanceCount(entryKey: update.key, to: update.count) }
            return try store.appendInTransaction(batch, to: session.id)
        }
        let keys = try store.writeJoiningTransaction(write)
        flushedLastNeedsUpdate = false
        if let i = batch.lastIndex(where: { !$0.isHeadingChanged && !$0.marked }) {
            flushedLast = (keys[i], batch[i].instanceCount)
        }
        storedEntries += batch.count
        pending.removeAll(keepingCapacity: true)
        return zip(batch, keys).map { entry, key in
            var e = entry
            e.key = key
            return e
        }
    }

    /// Flushes and ends the session at the newest row's time (or `end` when later is wanted and given). The gate's
    /// held fixes are dropped: nothing came to confirm them.
    public mutating func finish(end: Timestamp? = nil) throws {
        gate.finish()
        try finish(end: end, dropped: gate.dropped)
    }

    private mutating func finish(end: Timestamp? = nil, dropped: DroppedFixes) throws {
        try flush()
        guard var session else { return }
        let endTime = max(end ?? session.start, lastEntryTime ?? session.start)
        try store.writeJoiningTransaction {
            try store.finishSession(id: session.id, end: endTime)
            try store.setDroppedFixes(dropped - droppedBefore, of: session.id)
        }
        session.end = endTime
        self.session = session
    }
}
