// SPDX-License-Identifier: MIT
import Foundation
import GPSLogGeocoding
import GPSLogModel
import GPSLogPipeline
import GPSLogSampling
import GPSLogSources
import GPSLogStore
import Logging

/// The recording in progress: samples a source's events into a session and commits every `commitEvery` (marks at
/// once).
///
/// An actor, so the source loop, the once-a-second flush and the control socket (`mark`, `status`, `stop`) take
/// turns on the one database connection it owns; it runs on a `StoreThread` of its own, so its commits never block
/// Swift's cooperative pool.
public actor SessionRecorder {
    private var pipeline: SessionPipeline
    /// The database the pipeline ends in (read for the path and the dropped fixes kept so far).
    private let store: Store
    private let source: any FixSource
    private let logger: Logger
    private let thread: StoreThread
    private var lastFixArrival: ContinuousClock.Instant?
    private var lastFix: Fix?
    private var fixesReceived = 0
    private var lastCommit = ContinuousClock.now
    /// The addresses rows get in their own commit (cache hits, an offline provider); nil without geocoding.
    private let readyAddresses: ReadyAddresses?
    /// What the geocoder beside the recording (a network provider's) reported last.
    private var addressLoop: GeocodeReport?
    private var sending: SendingStatus?
    /// The mode a server's `trip_mode` asked for: the next `trip start` without `--mode` takes it.
    private var serverTripMode: TripMode?
    /// Splits seen so far (the pipeline counts them).
    private var splitsSeen = 0
    /// The source's time drops (`SourceStatistics.implausibleTimes`) when the current session began, and the
    /// pipeline's splits they were last counted at: see `keepSourceTimeDrops`.
    private var sourceTimeDropsBefore = 0
    private var splitsCountedForDrops = 0
    /// The sessions of this run, oldest first: the geocoder and live sending finish the ones a split ended.
    public private(set) var sessionIDs: [String] = []
    /// Commit as soon as this many rows wait, whatever the clock says. Live receivers (1-10 fixes a second) never
    /// reach it: the once-a-second tick commits first. A replay at full speed does, and fewer, larger commits are
    /// what make it fast (each commit writes the touched pages to the WAL).
    private let maxPending = 4096
    /// How long fixes may wait for their commit: what a kill -9 can lose (`record --commit-every`).
    private let commitEvery: Duration
    /// The default of `--commit-every`. Every commit rewrites whole pages (the Entries leaf and the leaves of its
    /// two indexes, often their parents and the header page): at 1 Hz, one commit a second wrote 59 MB an hour; one
    /// every 20 s, with the addresses in the same commits, writes about 7.8 MB (Benchmarks/README.md, "The SD card"),
    /// and a kill -9 loses at most 20 s.
    public static let defaultCommitEvery: Duration = .seconds(20)

    /// Opens the store and prepares a session named by `naming`; the session row is written at the first fix.
    /// - Parameters:
    ///   - databasePath: the database file, opened (and created or upgraded) here.
    ///   - naming: one name, or a template filled from each session's first fix.
    ///   - mode: the trip mode of the sessions (`--mode`); nil: none.
    ///   - policy: what the sampler keeps, from the `record` options.
    ///   - splits: when to start a new session (`--split`); nil: one session until the end.
    ///   - stays: the automatic pause and visits; nil: neither.
    ///   - source: where the fixes come from.
    ///   - thread: where the recorder's work runs (the caller shuts it down after `finish`).
    ///   - logger: where the recorder says what it does.
    ///   - commitEvery: how long fixes may wait for their commit (`--commit-every`).
    ///   - geocoder: gives rows the addresses that need no request as they are stored (`ReadyAddresses`); nil: none.
    ///   - geocodeOptions: the options of `geocoder`'s lookups.
    /// - Throws: `StoreError` when the database cannot be opened or its regions read; `ImportError` or `GEOSError`
    ///   when a stored polygon region cannot be made into an outline.
    public init(
        databasePath: String, naming: SessionNaming, mode: TripMode?, policy: SamplingPolicy,
        splits: SplitRules? = nil, stays: StayRules? = nil, source: any FixSource, thread: StoreThread,
        logger: Logger, commitEvery: Duration = SessionRecorder.defaultCommitEvery,
        geocoder: (any ReverseGeocoder)? = nil,
        geocodeOptions: GeocodeWorker.Options = GeocodeWorker.Options()
    ) throws {
        let store = try Store(path: databasePath)
        // The regions as they are at the start (`gpslog region add` while recording counts from the next run),
        // polygons through GEOS.
        self.store = store
        pipeline = SessionPipeline(
            sink: store, naming: naming, mode: mode, policy: policy, splits: splits, stays: stays,
            regions: try RegionWatcher.watching(store.regions()))
        readyAddresses = geocoder.map { ReadyAddresses(store: store, geocoder: $0, options: geocodeOptions) }
        if let ready = readyAddresses {
            pipeline.addresses = { ready.address(latitude: $0.latitude, longitude: $0.longitude, marked: $0.marked) }
        }
        self.source = source
        self.thread = thread
        self.logger = logger
        self.commitEvery = commitEvery
    }

    /// The recorder's own `StoreThread`, where all its work runs.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { thread.executor }

    /// True when called on the recorder's own thread (what tests check).
    public func runsOnItsOwnThread() -> Bool { thread.isCurrent }

    /// The session, once the first fix created it.
    public var session: Session? { pipeline.session }

    /// The database file.
    public var databasePath: String { store.path }

    /// Rows committed so far.
    public var committedEntries: Int { pipeline.storedEntries }

    /// Rows committed, marks among them, and the track's length in metres, kept as the rows were written (what
    /// `record` prints at the end, without a query over the whole session).
    public var totals: (entries: Int, marks: Int, distance: Double) {
        (pipeline.storedEntries, pipeline.markCount, pipeline.distance)
    }

    /// Takes a batch of events from the source, in order (one actor hop per batch, not per event).
    public func handle(_ events: [SourceEvent]) throws {
        for event in events { try handle(event) }
    }

    /// Takes one event from the source.
    public func handle(_ event: SourceEvent) throws {
        switch event {
        case .fix(let fix):
            fixesReceived += 1
            lastFix = fix
            lastFixArrival = .now
            let hadSession = pipeline.session != nil
            try pipeline.add(fix)
            try keepSourceTimeDropsOfSplits()
            if pipeline.splits != splitsSeen, let (ended, reason) = pipeline.splitOff {
                splitsSeen = pipeline.splits
                logger.info(
                    "session '\(ended.name.visible)' (\(ended.shortID)) ended at \(ended.end?.iso8601() ?? "?") (\(Self.words(reason)))"
                )
            }
            for event in pipeline.stayEvents { logger.info("\(Self.words(event))") }
            for t in pipeline.transitions {
                logger.info("region '\(t.region.name.visible)': \(t.event.rawValue) at \(t.time.iso8601())")
            }
            if let session = pipeline.session, sessionIDs.last != session.id {
                sessionIDs.append(session.id)
                let verb = hadSession || sessionIDs.count > 1 ? "now recording" : "recording"
                logger.info("\(verb) session '\(session.name.visible)' (\(session.id)) from \(source.description)")
            }
        case .heading(let reading):
            try pipeline.add(reading)
        case .resumed:
            pipeline.sourceResumed()
        }
        if pipeline.pendingCount >= maxPending { try flush() }
    }

    /// Commits what is pending once `commitEvery` has passed since the last commit (called every second; the
    /// tenth of a second of slack keeps a 1 s interval from slipping to 2 s on a late tick).
    public func tick() throws {
        if ContinuousClock.now - lastCommit >= commitEvery - .milliseconds(100) { try flush() }
    }

    /// Commits pending rows now.
    public func flush() throws {
        let stored = try pipeline.flush()
        lastCommit = .now
        if !stored.isEmpty { logger.debug("committed \(stored.count) entries (\(pipeline.storedEntries) in all)") }
    }

    /// Marks the freshest fix, commits it at once and returns it; `poi`: the label names a point of interest.
    public func mark(label: String?, poi: Bool = false) throws -> MarkInfo {
        guard let entry = try pipeline.mark(label: label, poi: poi), let session = pipeline.session else {
            throw RecordingError.recorder("no fix yet: nothing to mark; wait for the receiver to get a position")
        }
        try flush()
        logger.info("marked \(entry.latitude), \(entry.longitude)\(label.map { " '\($0.visible)'" } ?? "")")
        return MarkInfo(
            entryID: entry.id, sessionID: session.id, time: entry.time.iso8601(), latitude: entry.latitude,
            longitude: entry.longitude, altitude: entry.altitude, horizontalAccuracy: entry.horizontalAccuracy,
            label: entry.label)
    }

    /// Switches the monitoring mode by name (`quiet`, `manual`, `significant`, `move`, OwnTracks' numbers, or
    /// `interval` for GPS Log's sampling); nil changes nothing. Returns the mode now on, by name.
    public func setMonitoring(_ name: String?) throws -> String {
        if let name {
            let mode: MonitoringMode?
            if name == Self.intervalSampling {
                mode = nil
            } else if let named = MonitoringMode(name: name) {
                mode = named
            } else {
                throw RecordingError.recorder(
                    "'\(name.visible)' is not a monitoring mode: use quiet, manual, significant, move or interval")
            }
            let before = Self.name(of: pipeline.sampler.policy.monitoring)
            pipeline.setMonitoring(mode)
            logger.info("monitoring: \(before) -> \(Self.name(of: mode)) (gpslog monitoring)")
        }
        return Self.name(of: pipeline.sampler.policy.monitoring)
    }

    /// Applies a server's setting to the sampling (`min_distance`, `min_time`, `desired_accuracy`,
    /// `tracking_mode`, `pause_automatically`, `resume_with_geofence`, `visit_tracking`) from the next fix on.
    /// Returns the value it replaced, as text for the log; nil for a change that is not the recorder's.
    func apply(_ change: RemoteChange) -> String? {
        let policy = pipeline.sampler.policy
        var rules = pipeline.stays?.rules ?? StayRules()
        let before: String
        switch change {
        case .minDistance(let m):
            before = SettingText.distance(policy.minDistance)
            pipeline.updatePolicy { $0.minDistance = m }
        case .minTime(let ms):
            before = SettingText.milliseconds(policy.minTimeMilliseconds)
            pipeline.updatePolicy { $0.minTimeMilliseconds = ms }
        case .maxAccuracy(let m):
            before = SettingText.distance(policy.maxAccuracy)
            pipeline.updatePolicy { $0.maxAccuracy = m }
        case .monitoring(let mode):
            before = Self.name(of: policy.monitoring)
            pipeline.setMonitoring(mode)
        case .pause(let ms):
            before = pipeline.stays?.rules.pauseAfterMilliseconds == nil ? "false" : "true"
            rules.pauseAfterMilliseconds = ms
            pipeline.setStayRules(rules)
        case .resumeRadius(let m):
            before = SettingText.distance(rules.resumeRadius)
            rules.resumeRadius = m ?? max(policy.samePlaceRadius, 50)
            pipeline.setStayRules(rules)
        case .visits(let on):
            before = rules.visits ? "true" : "false"
            rules.visits = on
            pipeline.setStayRules(rules)
        case .tripMode(let mode):
            before = serverTripMode?.rawValue ?? pipeline.mode?.rawValue ?? TripMode.bicycle.rawValue
            serverTripMode = mode
        case .tripMinDistance(let m):
            before = SettingText.distance(pipeline.tripSampling.minDistance)
            pipeline.updateTripSampling { $0.minDistance = m }
        case .tripMinTime(let ms):
            before = SettingText.milliseconds(pipeline.tripSampling.minTimeMilliseconds)
            pipeline.updateTripSampling { $0.minTimeMilliseconds = ms }
        case .tripMaxAccuracy(let m):
            before = SettingText.distance(pipeline.tripSampling.maxAccuracy)
            pipeline.updateTripSampling { $0.maxAccuracy = m }
        case .sendInterval, .loggingMode, .batchSize:
            return nil
        }
        return before
    }

    /// Sets OwnTracks' tag for the entries from now on; empty clears it, nil changes nothing. Returns the tag now set.
    public func setTag(_ tag: String?) -> String? {
        if let tag {
            let cleaned = tag.trimmedWhitespace.truncated(to: TextLimit.label)
            pipeline.tag = cleaned.isEmpty ? nil : cleaned
            logger.info("tag: \(pipeline.tag.map { "'\($0.visible)'" } ?? "cleared") (gpslog tag)")
        }
        return pipeline.tag
    }

    /// The mode of the trip running (`gpslog trip start`); nil when none.
    public var tripMode: TripMode? { pipeline.trip?.mode }

    /// Overland's Trip Settings, used by the trips started from now on.
    public func setTripSampling(_ sampling: TripSampling) { pipeline.tripSampling = sampling }

    /// Starts a trip (Overland's Start): the session in progress ends and the trip's opens at the next fix, with the
    /// trip settings. `mode` nil: the recording's `--mode`, else Overland's default, bicycle.
    public func startTrip(mode: TripMode?, name: String?) throws -> RecorderStatus {
        let mode = mode ?? serverTripMode ?? pipeline.mode ?? .bicycle
        // A blank name would be refused when the trip's session is created, at the next fix: the default instead.
        let name = name.map(\.trimmedWhitespace).flatMap { $0.isEmpty ? nil : $0 }
        try pipeline.startTrip(mode: mode, name: name)
        try keepSourceTimeDropsOfSplits()
        logger.info("trip started: \(mode.rawValue)\(name.map { " '\($0.visible)'" } ?? "") (gpslog trip start)")
        return status()
    }

    /// Ends the running trip (Overland's Stop); the recording goes on in a new session at the next fix.
    public func stopTrip() throws -> RecorderStatus {
        let ended = try pipeline.stopTrip()
        try keepSourceTimeDropsOfSplits()
        if let ended {
            logger.info(
                "trip '\(ended.name.visible)' (\(ended.shortID)) ended at \(ended.end?.iso8601() ?? "?") (gpslog trip stop)"
            )
        } else {
            logger.info("trip ended before any fix (gpslog trip stop)")
        }
        return status()
    }

    /// The name `gpslog monitoring` takes for GPS Log's interval sampling.
    public static let intervalSampling = "interval"

    static func name(of mode: MonitoringMode?) -> String { mode?.name ?? intervalSampling }

    /// What the tracker screen shows.
    public func status() -> RecorderStatus {
        let stats = source.statistics
        let duration: Double? = pipeline.session.map { s in
            Double(((pipeline.lastEntryTime ?? s.start).milliseconds - s.start.milliseconds)) / 1000
        }
        return RecorderStatus(
            sessionID: pipeline.session?.id, sessionName: pipeline.name, source: source.description, pid: getpid(),
            lastFixAgeSeconds: lastFixArrival.map { Self.seconds(ContinuousClock.now - $0) },
            lastFixTime: lastFix?.time.iso8601(), latitude: lastFix?.latitude, longitude: lastFix?.longitude,
            altitude: lastFix?.altitude, horizontalAccuracy: lastFix?.horizontalAccuracy, speed: lastFix?.speed,
            entries: pipeline.storedEntries + pipeline.pendingCount, marks: pipeline.markCount,
            fixesReceived: fixesReceived,
            badSentences: stats.badSentences, durationSeconds: duration,
            distanceMeters: (pipeline.distance * 10).rounded() / 10,
            connected: stats.connected, addresses: addressReport, sending: sending,
            droppedFixes: droppedFixes, sessions: sessionIDs.count,
            monitoring: pipeline.sampler.policy.monitoring?.name,
            pausedSince: pipeline.stays?.pausedAt?.time.iso8601(),
            visitSince: pipeline.stays?.visit?.arrival.iso8601(), trip: pipeline.trip?.mode.rawValue,
            regions: pipeline.regionWatcher.map(\.insideNames), tag: pipeline.tag,
            sampling: SamplingStatus(pipeline.sampler.policy, stays: pipeline.stays?.rules))
    }

    /// What the geocoder beside the recording has done so far, for `status`.
    public func setAddresses(_ report: GeocodeReport) { addressLoop = report }

    /// The addresses given at commit and the geocoder's beside it, together. Every row passes through
    /// `readyAddresses` first, so its cells are all the cells there are.
    private var addressReport: GeocodeReport? {
        guard let ready = readyAddresses else { return addressLoop }
        var report = ready.report
        if let addressLoop { report.add(addressLoop) }
        return report
    }

    /// Where live sending stands, for `status`.
    public func setSending(_ status: SendingStatus) { sending = status }

    /// Commits everything and ends the session. Returns it (nil when no fix ever came).
    public func finish() throws -> Session? {
        try pipeline.finish()
        if let session = pipeline.session { try keepSourceTimeDrops(in: session.id) }
        return pipeline.session
    }

    /// What this run refused before sampling: the gate's counts, with the fixes the source's own time check (the
    /// NMEA decoder's, gpsd's) dropped before the gate ever saw them counted as time drops.
    var droppedFixes: DroppedFixes {
        var dropped = pipeline.gate.dropped
        dropped.time += source.statistics.implausibleTimes
        return dropped
    }

    /// After a split (`--split`, a trip started or stopped): the session it ended keeps the source's time drops.
    private func keepSourceTimeDropsOfSplits() throws {
        guard pipeline.splits != splitsCountedForDrops else { return }
        splitsCountedForDrops = pipeline.splits
        if let ended = pipeline.splitOff?.session { try keepSourceTimeDrops(in: ended.id) }
    }

    /// Adds to an ended session's dropped fixes (the pipeline kept the gate's) what the source's time check dropped
    /// since the session began, so that `show` counts every fix refused for its time.
    private func keepSourceTimeDrops(in sessionID: String) throws {
        let now = source.statistics.implausibleTimes
        defer { sourceTimeDropsBefore = now }
        guard now > sourceTimeDropsBefore else { return }
        var dropped = try store.droppedFixes(of: sessionID) ?? DroppedFixes()
        dropped.time += now - sourceTimeDropsBefore
        try store.setDroppedFixes(dropped, of: sessionID)
    }

    static func words(_ event: StayEvent) -> String {
        func place(_ fix: Fix) -> String { String(format: "%.5f, %.5f", fix.latitude, fix.longitude) }
        switch event {
        case .paused(let fix):
            return "paused: standing still since the --pause-when-stopped time; no entries until the receiver "
                + "leaves \(place(fix)) by the resume radius (\(fix.time.iso8601()))"
        case .resumed(let fix): return "resumed: left the pause's geofence at \(place(fix)) (\(fix.time.iso8601()))"
        case .arrived(let visit):
            return String(format: "visit: arrived at %.5f, %.5f at ", visit.latitude, visit.longitude)
                + visit.arrival.iso8601()
        case .departed(let visit):
            return String(format: "visit: left %.5f, %.5f at ", visit.latitude, visit.longitude)
                + (visit.departure?.iso8601() ?? "?")
        }
    }

    static func words(_ reason: SplitReason) -> String {
        switch reason {
        case .gap: return "no fix for the --split gap"
        case .stop: return "moving again after standing still for the --split stop"
        case .daily: return "midnight"
        case .trip: return "a trip started or stopped"
        }
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
