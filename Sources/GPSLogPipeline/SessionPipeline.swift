// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSampling

/// The way of a fix from a source to a stored row: the stages of GPSLogSampling in order, ending in a `SessionSink`.
///
///     fix -> FixGate -> SessionSplitter -> RegionWatcher -> StayWatcher -> Sampler -> pending rows -> sink
///
/// Each stage is a value type that says what it decided (`FixGate.admit`, `SplitReason`, `RegionWatcher.Event`,
/// `StayEvent`, `SampleDecision`); this type only applies the decisions. The recorder, replay and the NMEA importer
/// feed it, so a recording and an import of the same log give the same rows. (Files whose points carry their own
/// times are kept as they are, through `EntryWriter`, to the same sink.)
///
/// New rows wait until `flush()`. The session is created at the first stored fix, which gives it its start time
/// (and, with a template, its name). With a `SessionSplitter` (the recorder's `--split`), a fix that starts a new
/// session ends the current one and opens the next; the gate and the id generator carry on.
public struct SessionPipeline {
    /// Where the rows go.
    public let sink: any SessionSink
    /// How sessions are named: one name, or a template filled from each session's first fix.
    public let naming: SessionNaming
    /// The trip mode of the recording's sessions (a trip's session has the trip's); nil: none.
    public let mode: TripMode?
    /// Decides which admitted fixes become rows; its policy changes with `setMonitoring`, `updatePolicy` and trips.
    public internal(set) var sampler: Sampler
    /// Holds back implausible fixes, and counts those it dropped over the whole recording (see `dropped`).
    public private(set) var gate: FixGate
    /// Says when a fix starts a new session; nil: one session.
    public private(set) var splitter: SessionSplitter?
    /// Sessions ended by a split so far.
    public private(set) var splits = 0
    /// Sessions of the recording made so far (trips not counted).
    private var plainSessions = 0
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
    /// The source lost its receiver and got it back: the next location row starts a track segment.
    private var resumed = false
    /// The automatic pause and visits (`record --pause-when-stopped`, `--visits`); nil when neither is on.
    public internal(set) var stays: StayWatcher?
    /// What the stay watcher saw at the last fix (for the recorder's log).
    public private(set) var stayEvents: [StayEvent] = []
    /// Tracking events and visit changes waiting for the next flush.
    private var pendingStays: [StayEvent] = []
    /// The stored visit still under way (its departure updates that row).
    private var openVisitKey: Int64?
    /// OwnTracks' tag, kept with every entry from now on (`record --tag`, `gpslog tag`); nil: none.
    public var tag: String?
    /// The regions watched (`gpslog region add`); nil when there are none.
    public private(set) var regionWatcher: RegionWatcher?
    /// The transitions of the last fix (for the recorder's log).
    public private(set) var transitions: [Transition] = []
    /// Transitions waiting for the next flush.
    private var pendingTransitions: [Transition] = []
    /// The trip running inside the recording (`startTrip`), if any.
    public internal(set) var trip: Trip?
    /// Overland's Trip Settings: the sampling a trip uses over the main settings.
    public var tripSampling = TripSampling()
    /// The main sampling policy while a trip runs (restored when it ends).
    var mainPolicy: SamplingPolicy?
    /// The trip being ended was ended by the automatic pause (written with its end).
    var tripStoppedAutomatically = false

    /// - Parameters:
    ///   - sink: where the sessions and rows go.
    ///   - naming: one name, or a template filled from each session's first fix.
    ///   - mode: the trip mode of the sessions; nil: none.
    ///   - policy: what the sampler keeps.
    ///   - splits: when to start a new session (the recorder's); nil: one session.
    ///   - stays: the automatic pause and visits; nil: neither.
    ///   - regions: watches the regions whose transitions to record (in every monitoring mode but quiet); nil: none
    ///     (`RegionWatcher.watching`).
    ///   - sessionID: a fixed id for the session (deterministic imports); the entry ids are then seeded from it.
    public init(
        sink: any SessionSink, naming: SessionNaming, mode: TripMode? = nil, policy: SamplingPolicy,
        splits: SplitRules? = nil, stays: StayRules? = nil, regions: RegionWatcher? = nil, sessionID: String? = nil
    ) {
        self.sink = sink
        self.naming = naming
        self.mode = mode
        fixedSessionID = sessionID
        sampler = Sampler(policy: policy, seed: sessionID.map(SplitMix64.seed(from:)))
        gate = FixGate(maxSpeed: policy.maxSpeed)
        splitter = splits.flatMap { $0.splits ? SessionSplitter(rules: $0, policy: policy) : nil }
        self.stays = stays.flatMap { $0.watches ? StayWatcher(rules: $0, policy: policy) : nil }
        regionWatcher = regions
    }

    /// A writer of one session named `name`.
    public init(
        sink: any SessionSink, name: String, mode: TripMode? = nil, policy: SamplingPolicy, sessionID: String? = nil
    ) {
        self.init(sink: sink, naming: .fixed(name), mode: mode, policy: policy, sessionID: sessionID)
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
        transitions = []
        try gate.admit(fix) { fix, moved, dropped in
            if moved { sampler.startOver() }
            // No automatic split inside a trip: the trip is one session from its start to its stop.
            if let reason = splitter?.check(fix), session != nil, trip == nil { try split(reason, dropped: dropped) }
            let crossed = try watchRegions(fix)
            if stays != nil {
                let events = stays!.add(fix)
                try record(events, at: fix, dropped: dropped)
                if stays!.isPaused {
                    sampler.observe(fix)
                    return
                }
            }
            let decision = sampler.add(fix)
            guard crossed else { return try apply(decision) }
            // A region entered or left: the fix is an entry made by it (OwnTracks' t: c), sampled or not.
            if case .newEntry(var entry) = decision {
                entry.trigger = .circularRegion
                try apply(.newEntry(entry))
            } else {
                try apply(decision)
                try apply(.newEntry(sampler.report(fix, trigger: .circularRegion)))
            }
        }
    }

    /// Checks the regions at `fix` and queues its transitions; true when there were some. Quiet mode watches
    /// without recording them (OwnTracks' quiet publishes no region events), so switching out of it knows where the
    /// receiver is.
    private mutating func watchRegions(_ fix: Fix) throws -> Bool {
        guard regionWatcher != nil else { return false }
        let events = try regionWatcher!.add(fix)
        guard !events.isEmpty, sampler.policy.monitoring != .quiet else { return false }
        try ensureSession(start: fix.time)
        let made = events.map {
            Transition(
                region: $0.region, event: $0.event, time: fix.time, latitude: fix.latitude, longitude: fix.longitude,
                horizontalAccuracy: fix.horizontalAccuracy)
        }
        transitions += made
        pendingTransitions += made
        return true
    }

    /// Queues the stay watcher's events for the next flush; a resume starts a new segment, as a source that came
    /// back does.
    private mutating func record(_ events: [StayEvent], at fix: Fix, dropped: DroppedFixes) throws {
        guard !events.isEmpty else { return }
        try ensureSession(start: fix.time)
        stayEvents += events
        pendingStays += events
        if events.contains(where: { if case .resumed = $0 { true } else { false } }) { sourceResumed() }
        // The automatic pause ends a running trip, as Overland's does (its record says stopped_automatically).
        if trip != nil, events.contains(where: { if case .paused = $0 { true } else { false } }) {
            _ = try stopTrip(automatically: true, dropped: dropped)
        }
    }

    /// Ends the current session and gets ready for the next, which the fix being added opens.
    mutating func split(_ reason: SplitReason, dropped: DroppedFixes) throws {
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

    /// Queues a mark at the freshest fix; flush to store it.
    /// - Parameters:
    ///   - label: the mark's label; nil or empty: none.
    ///   - poi: the label names a point of interest (OwnTracks' `poi`).
    /// - Returns: the queued mark; nil before the first fix.
    /// - Throws: the sink's error when the mark opens the session and it cannot be created.
    public mutating func mark(label: String?, poi: Bool = false) throws -> Entry? {
        guard var entry = sampler.mark(label: label) else { return nil }
        try ensureSession(start: entry.time)
        entry.label = label.flatMap { $0.isEmpty ? nil : $0 }
        entry.isPOI = poi && entry.label != nil
        entry.tag = tag
        if let names = regionWatcher?.insideNames, !names.isEmpty { entry.inRegions = names }
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
                session = try sink.createSession(name: name, start: start, mode: trip.mode, id: id, trip: true)
            } else {
                session = try sink.createSession(
                    name: continuationName(at: start), start: start, mode: mode, id: id, trip: false)
                plainSessions += 1
            }
        }
    }

    /// The name of a session of the recording (not a trip). A fixed name is the first one's; the recording going on
    /// after a trip gets its start time after the name (as `--split` names a plain name's sessions), so no two
    /// sessions of one run share a name and `gpslog show NAME` finds one.
    private func continuationName(at start: Timestamp) -> String {
        guard case .fixed(let name) = naming, plainSessions > 0 else { return naming.name(at: start) }
        return SessionNameTemplate("\(name) \(SessionNameTemplate.defaultPattern)", timeZone: zone).name(at: start)
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
            if let names = regionWatcher?.insideNames, !names.isEmpty { entry.inRegions = names }
            entry.tag = tag
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
        guard let session,
            !pending.isEmpty || flushedLastNeedsUpdate || !pendingStays.isEmpty || !pendingTransitions.isEmpty
        else { return [] }
        let transitions = pendingTransitions
        // Before the transaction: the lookups read the cache, and need not hold the write lock.
        if let addresses {
            for i in pending.indices where pending[i].address == nil { pending[i].address = addresses(pending[i]) }
        }
        let batch = pending
        let update = flushedLastNeedsUpdate ? flushedLast : nil
        let stayEvents = pendingStays
        var openVisit = openVisitKey
        let write = { [sink] () throws -> [Int64] in
            if let update { try sink.setInstanceCount(entryKey: update.key, to: update.count) }
            try Self.store(stayEvents, in: sink, session: session.id, openVisit: &openVisit)
            for transition in transitions { try sink.addTransition(transition, to: session.id) }
            return try sink.appendEntries(batch, to: session.id)
        }
        let keys = try sink.writeJoiningTransaction(write)
        openVisitKey = openVisit
        pendingStays.removeAll()
        pendingTransitions.removeAll()
        flushedLastNeedsUpdate = false
        // A sink that keeps no keys (a dry run) has no row to update later.
        if let i = batch.lastIndex(where: { !$0.isHeadingChanged && !$0.marked }), i < keys.count {
            flushedLast = (keys[i], batch[i].instanceCount)
        }
        storedEntries += batch.count
        pending.removeAll(keepingCapacity: true)
        guard keys.count == batch.count else { return batch }
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
        let automatically = tripStoppedAutomatically
        try sink.writeJoiningTransaction {
            try sink.finishSession(id: session.id, end: endTime)
            try sink.setDroppedFixes(dropped - droppedBefore, of: session.id)
            // A trip ended by `trip stop`, the recording's end or the automatic pause says which.
            if session.isTrip { try sink.setStoppedAutomatically(automatically, of: session.id) }
        }
        session.end = endTime
        self.session = session
    }
}
