// SPDX-License-Identifier: MIT
import Foundation
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

    /// Rows committed so far.
    public private(set) var storedEntries = 0
    /// Marks stored so far.
    public private(set) var markCount = 0
    /// Length of the track so far, in metres.
    public private(set) var distance = 0.0
    /// Time of the newest stored row.
    public private(set) var lastEntryTime: Timestamp?
    private var lastTrackPoint: (latitude: Double, longitude: Double)?
    /// The source lost its receiver and got it back: the next location row starts a track segment.
    private var resumed = false
    /// The automatic pause and visits (`record --pause-when-stopped`, `--visits`); nil when neither is on.
    public private(set) var stays: StayWatcher?
    /// What the stay watcher saw at the last fix (for the recorder's log).
    public private(set) var stayEvents: [StayEvent] = []
    /// Tracking events and visit changes waiting for the next flush.
    private var pendingStays: [StayEvent] = []
    /// The stored visit still under way (its departure updates that row).
    private var openVisitKey: Int64?
    /// The trip running inside the recording (`startTrip`), if any.
    public private(set) var trip: Trip?
    /// Overland's Trip Settings: the sampling a trip uses over the main settings.
    public var tripSampling = TripSampling()
    /// The main sampling policy while a trip runs (restored when it ends).
    private var mainPolicy: SamplingPolicy?

    /// A trip inside a recording: a session of its own with its mode.
    public struct Trip: Sendable, Equatable {
        public var mode: TripMode
        /// Its name; nil: the mode and the start time.
        public var name: String?
    }

    /// - Parameters:
    ///   - sessionID: a fixed id for the session (deterministic imports); the entry ids are then seeded from it.
    ///   - splits: when to start a new session (the recorder's); nil: one session.
    ///   - stays: the automatic pause and visits; nil: neither.
    public init(
        store: Store, naming: SessionNaming, mode: TripMode? = nil, policy: SamplingPolicy, splits: SplitRules? = nil,
        stays: StayRules? = nil, sessionID: String? = nil
    ) {
        self.store = store
        self.naming = naming
        self.mode = mode
        fixedSessionID = sessionID
        sampler = Sampler(policy: policy, seed: sessionID.map(SplitMix64.seed(from:)))
        gate = FixGate(maxSpeed: policy.maxSpeed)
        splitter = splits.flatMap { $0.splits ? SessionSplitter(rules: $0, policy: policy) : nil }
        self.stays = stays.flatMap { $0.watches ? StayWatcher(rules: $0, policy: policy) : nil }
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

    /// Takes a fix: through the gate, then (starting a new session first when the splitter says so) the stay
    /// watcher, then, unless the automatic pause holds, the sampler. Creates the session at the first stored fix.
    public mutating func add(_ fix: Fix) throws {
        var gate = self.gate
        defer { self.gate = gate }
        stayEvents = []
        try gate.admit(fix) { fix, moved, dropped in
            if moved { sampler.startOver() }
            // No automatic split inside a trip: the trip is one session from its start to its stop.
            if let reason = splitter?.check(fix), session != nil, trip == nil { try split(reason, dropped: dropped) }
            if stays != nil {
                let events = stays!.add(fix)
                try record(events, at: fix)
                if stays!.isPaused {
                    sampler.observe(fix)
                    return
                }
            }
            try apply(sampler.add(fix))
        }
    }

    /// Queues the stay watcher's events for the next flush; a resume starts a new segment, as a source that came
    /// back does.
    private mutating func record(_ events: [StayEvent], at fix: Fix) throws {
        guard !events.isEmpty else { return }
        try ensureSession(start: fix.time)
        stayEvents += events
        pendingStays += events
        if events.contains(where: { if case .resumed = $0 { true } else { false } }) { sourceResumed() }
        // The automatic pause ends a running trip, as Overland's does (its record says stopped_automatically).
        if trip != nil, events.contains(where: { if case .paused = $0 { true } else { false } }) {
            _ = try stopTrip(automatically: true)
        }
    }

    /// Starts a trip: the current session ends, and the next stored fix opens the trip's session, with `mode` and
    /// the trip settings (`tripSampling`) over the main ones.
    /// - Throws: `SessionWriterError.tripRunning` when a trip already runs.
    public mutating func startTrip(mode: TripMode, name: String?) throws {
        guard trip == nil else { throw SessionWriterError.tripRunning(mode: trip!.mode) }
        if session != nil { try split(.trip, dropped: gate.dropped) }
        trip = Trip(mode: mode, name: name)
        mainPolicy = sampler.policy
        sampler.policy = tripSampling.applied(to: sampler.policy)
    }

    /// Ends the running trip: its session ends (and says whether the automatic pause ended it), the main settings
    /// come back, and the next stored fix opens a session of the recording again.
    /// - Returns: the trip's session, nil when no fix came during the trip.
    /// - Throws: `SessionWriterError.noTrip` when no trip runs.
    public mutating func stopTrip(automatically: Bool = false) throws -> Session? {
        guard trip != nil else { throw SessionWriterError.noTrip }
        var ended: Session?
        if let current = session {
            try split(.trip, dropped: gate.dropped)
            try store.setStoppedAutomatically(automatically, of: current.id)
            ended = splitOff?.session
            ended?.stoppedAutomatically = automatically
        }
        trip = nil
        if let mainPolicy {
            // Keep a monitoring mode switched during the trip.
            var policy = mainPolicy
            policy.monitoring = sampler.policy.monitoring
            sampler.policy = policy
        }
        mainPolicy = nil
        return ended
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
        resumed = false
        sampler.startOver()
    }

    /// Switches the sampler to an OwnTracks monitoring mode (nil: GPS Log's interval sampling); its rules measure
    /// from the last entry, so the switch takes effect at the next fix.
    public mutating func setMonitoring(_ mode: MonitoringMode?) {
        sampler.policy.monitoring = mode
    }

    /// The source lost its receiver and has it back (a device reopened, gpsd reached again): the next location row
    /// starts a new track segment, however little time passed, and is stored whatever the sampler's distance and
    /// time filters say, so the segment has its first point.
    public mutating func sourceResumed() {
        resumed = true
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
            if let trip {
                let name =
                    trip.name
                    ?? SessionNameTemplate(
                        "\(trip.mode.rawValue) \(SessionNameTemplate.defaultPattern)", timeZone: zone
                    ).name(at: start)
                session = try store.createSession(name: name, start: start, mode: trip.mode, id: id, trip: true)
            } else {
                session = try store.createSession(name: naming.name(at: start), start: start, mode: mode, id: id)
            }
        }
    }

    /// The zone of names: the template's, else the split rules', else the system's.
    private var zone: TimeZone {
        if case .template(let template) = naming { return template.timeZone }
        return splitter?.rules.timeZone ?? .current
    }

    private mutating func apply(_ decision: SampleDecision) throws {
        switch decision {
        case .newEntry(var entry):
            try ensureSession(start: entry.time)
            let isTrackPoint = !entry.isHeadingChanged && !entry.marked
            if isTrackPoint && resumed {
                // The first point of a session starts its track anyway.
                entry.startsSegment = lastTrackPoint != nil
                resumed = false
            }
            pending.append(entry)
            lastEntryTime = max(lastEntryTime ?? entry.time, entry.time)
            if isTrackPoint {
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
        guard let session, !pending.isEmpty || flushedLastNeedsUpdate || !pendingStays.isEmpty else { return [] }
        let batch = pending
        let update = flushedLastNeedsUpdate ? flushedLast : nil
        let stayEvents = pendingStays
        var openVisit = openVisitKey
        let write = { [store] () throws -> [Int64] in
            if let update { try store.setInstanceCount(entryKey: update.key, to: update.count) }
            try Self.store(stayEvents, in: store, session: session.id, openVisit: &openVisit)
            return try store.appendInTransaction(batch, to: session.id)
        }
        let keys = try store.writeJoiningTransaction(write)
        openVisitKey = openVisit
        pendingStays.removeAll()
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

    /// Writes the stay watcher's events: pauses and resumes as tracking events, an arrival as a new visit row
    /// (whose key `openVisit` keeps), a departure into that row.
    private static func store(_ events: [StayEvent], in store: Store, session: String, openVisit: inout Int64?) throws {
        for event in events {
            switch event {
            case .paused(let fix), .resumed(let fix):
                let action: TrackingAction = if case .paused = event { .paused } else { .resumed }
                try store.addTrackingEvent(
                    TrackingEvent(action: action, time: fix.time, latitude: fix.latitude, longitude: fix.longitude),
                    to: session)
            case .arrived(let visit):
                openVisit = try store.addVisit(visit, to: session)
            case .departed(var visit):
                visit.key = openVisit
                try store.setDeparture(of: visit)
                openVisit = nil
            }
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

/// What a writer refuses.
public enum SessionWriterError: LocalizedError, Equatable {
    /// `trip start` while a trip runs.
    case tripRunning(mode: TripMode)
    /// `trip stop` without a trip.
    case noTrip

    public var errorDescription: String? {
        switch self {
        case .tripRunning(let mode): "a \(mode.rawValue) trip is already running: stop it first (gpslog trip stop)"
        case .noTrip: "no trip is running: start one with gpslog trip start"
        }
    }
}
