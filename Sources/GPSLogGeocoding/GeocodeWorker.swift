// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogSystem

/// How fast a provider may be asked: `count` requests per `seconds`, spaced evenly (no bursts).
public struct GeocodeRate: Sendable, Equatable, CustomStringConvertible {
    /// Requests allowed per `seconds`.
    public var count: Int
    /// The period the count is for, in seconds.
    public var seconds: Double
    /// Milliseconds between two requests: the rate's spacing plus 5 % and 50 ms, so network jitter never makes two
    /// requests arrive closer together than the limit (the server measures arrivals, we can only time departures).
    public var spacingMilliseconds: Int64 { Int64((seconds / Double(count) * 1000 * 1.05).rounded(.up)) + 50 }
    /// Milliseconds between two requests at exactly the rate.
    public var periodMilliseconds: Int64 { Int64((seconds / Double(count) * 1000).rounded(.up)) }
    /// `1/s`, `4/min`, else `COUNT/SECONDSs`.
    public var description: String {
        seconds == 60 ? "\(count)/min" : seconds == 1 ? "\(count)/s" : "\(count)/\(seconds)s"
    }

    /// A rate of `count` requests per `seconds`.
    public init(count: Int, seconds: Double) {
        self.count = count
        self.seconds = seconds
    }

    /// Parses `1/s`, `4/min`, `1/min`, `10/h`.
    public init?(_ text: String) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let n = Int(parts[0]), n > 0 else { return nil }
        switch parts[1] {
        case "s", "sec": seconds = 1
        case "min", "m": seconds = 60
        case "h": seconds = 3600
        default: return nil
        }
        count = n
    }
}

/// Fills in the addresses of entries that have none, with the fewest requests possible and never faster than the
/// provider allows.
///
/// The work is durable without a queue of its own: it is the entries whose Address is NULL. Entries are grouped by
/// geohash cell (a mark is its own cell: it always gets a lookup at its exact point); each cell is asked once, at
/// the point that opened it, and its answer written to every entry of the cell. Answers are cached per provider,
/// language and cell (negative ones with an expiry), so a restart never repeats a finished request; the time of
/// the last request is stored, so a restart does not burst either. HTTP 429/503 pause the provider (60 s doubling
/// to an hour, with jitter, or Retry-After when above zero); 403 blocks it until the user resets it.
public final class GeocodeWorker {
    /// Language, cell size, pace and patience.
    public struct Options: Sendable {
        /// The language answers are asked in (Nominatim's `accept-language`, Photon's `lang`); part of the cache key.
        public var language = "en"
        /// Geohash characters of a cell (7: about 150 m across); one lookup answers a whole cell.
        public var precision = 7
        /// How fast the provider is asked; 1 request a second by default.
        public var rate = GeocodeRate(count: 1, seconds: 1)
        /// How long a "no address here" answer is trusted.
        public var negativeLifetimeMilliseconds: Int64 = 30 * 86_400_000
        /// The first pause after a 429 or 503, in milliseconds (60 s); it doubles with each one after.
        public var minimumPauseMilliseconds: Int64 = 60_000
        /// The longest pause, in milliseconds (an hour).
        public var maximumPauseMilliseconds: Int64 = 3_600_000
        /// Stop the run after this many failures in a row (the network is down).
        public var maxConsecutiveFailures = 3
        /// The defaults: English, 7-character cells, 1 request a second.
        public init() {}
    }

    /// The connection the worker reads and writes through (its own: it never shares the recorder's).
    public let store: any AddressStore
    let geocoder: any ReverseGeocoder
    let options: Options
    /// Milliseconds since the epoch; replaceable so tests can let an hour pass in no time.
    public var now: () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    /// Every cell this worker has handled over all its runs (the recorder runs one worker many times).
    public private(set) var seenCells = Set<String>()

    /// A worker that fills in `store`'s addresses from `geocoder`; asks nothing until run.
    public init(store: any AddressStore, geocoder: any ReverseGeocoder, options: Options) {
        self.store = store
        self.geocoder = geocoder
        self.options = options
    }

    struct WorkItem {
        var cell: String
        var latitude: Double
        var longitude: Double
        var keys: [Int64]
    }

    /// Geocodes the entries without an address of `sessions` (all sessions when nil).
    /// - Parameters:
    ///   - sessions: the ids of the sessions whose entries to geocode; nil: all.
    ///   - progress: called with (items done, items in all).
    ///   - onFailure: called with each failed request's reason in words, as it happens.
    ///   - isolation: the actor the run's store work stays on between lookups (the recorder's geocoding loop pins
    ///     it to a thread of its own); the caller's by default.
    /// - Returns: the run's counts, with the pause or block that ended it early, if any.
    /// - Throws: the store's error when it cannot read or write; `CancellationError` when the task is cancelled
    ///   while it waits for a slot. A failed lookup (`GeocodeFailure`) is counted in the report, not thrown.
    public func run(
        sessions: [String]? = nil, progress: ((Int, Int) -> Void)? = nil, onFailure: ((String) -> Void)? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> GeocodeReport {
        var report = GeocodeReport(provider: geocoder.cacheKey)
        let state = try providerState()
        if let blocked = state.blocked {
            report.blocked = blocked
            return report
        }
        if let paused = state.pausedUntil, paused > now() {
            report.pausedUntil = Timestamp(milliseconds: paused).iso8601()
            return report
        }
        let items = try collectWork(sessions: sessions)
        report.cells = items.count
        seenCells.formUnion(items.lazy.map(\.cell))
        var consecutiveFailures = 0
        // Answers that cost no request (cache hits, offline providers) are written together, in one transaction
        // before the next network request and at the end of the run: on an SD card each commit rewrites whole
        // pages, so one per cell would cost several pages a cell (see Benchmarks/README.md, "The SD card").
        var batch = AddressBatch()
        for (done, item) in items.enumerated() {
            progress?(done, items.count)
            if batch.items.count >= AddressBatch.limit { try flush(&batch, into: &report) }
            if let cached = try cachedAnswer(cell: item.cell) {
                report.cacheHits += 1
                if case .address = cached {
                    batch.add(cached, for: item, remember: false)
                } else {
                    report.negatives += 1
                }
                continue
            }
            if geocoder.isNetwork {
                try flush(&batch, into: &report)
                try await waitForSlot()
            }
            report.requests += 1
            do {
                let answer = try await lookup(item)
                consecutiveFailures = 0
                if case .none = answer { report.negatives += 1 }
                // The answer and its addresses land in one transaction: a kill leaves both or neither. A network
                // answer is written at once, so a restart never asks for it again.
                batch.add(answer, for: item, remember: true)
                if geocoder.isNetwork {
                    try flush(&batch, into: &report)
                    try clearBackoff()
                }
            } catch let failure as GeocodeFailure {
                try flush(&batch, into: &report)
                switch failure {
                case .rateLimited(_, let retryAfter):
                    report.pausedUntil = Timestamp(milliseconds: try pause(retryAfter: retryAfter)).iso8601()
                    return report
                case .forbidden(let message):
                    try block(message)
                    report.blocked = message
                    return report
                case .transient, .rejected, .setup:
                    report.failures += 1
                    onFailure?(describeForPeople(failure))
                    consecutiveFailures += 1
                    if consecutiveFailures >= options.maxConsecutiveFailures { return report }
                }
            }
        }
        try flush(&batch, into: &report)
        progress?(items.count, items.count)
        return report
    }

    // MARK: - Work

    /// The entries without an address, grouped by cell in time order; marks are cells of their own.
    func collectWork(sessions: [String]?) throws -> [WorkItem] {
        var order: [String] = []
        var items: [String: WorkItem] = [:]
        try store.forEachEntryWithoutAddress(sessions: sessions) { e in
            let cell = Self.cell(latitude: e.latitude, longitude: e.longitude, marked: e.marked, options: options)
            if items[cell] == nil {
                order.append(cell)
                items[cell] = WorkItem(cell: cell, latitude: e.latitude, longitude: e.longitude, keys: [])
            }
            items[cell]!.keys.append(e.key)
        }
        return order.map { items[$0]! }
    }

    /// The cell an entry's address is asked and cached for: its geohash, or for a mark its exact point.
    static func cell(latitude: Double, longitude: Double, marked: Bool, options: Options) -> String {
        marked
            ? "@" + Decimal7.string(latitude) + "," + Decimal7.string(longitude)
            : Geohash.encode(latitude: latitude, longitude: longitude, precision: options.precision)
    }

    /// Answers waiting to be written: the cache rows to remember and the addresses to set.
    struct AddressBatch {
        /// Cells per transaction at most (a backfill of thousands of offline cells commits now and then).
        static let limit = 256
        var items: [(answer: GeocodeAnswer, item: WorkItem, remember: Bool)] = []
        mutating func add(_ answer: GeocodeAnswer, for item: WorkItem, remember: Bool) {
            items.append((answer, item, remember))
        }
    }

    /// Writes a batch in one transaction and counts the entries that took an address.
    private func flush(_ batch: inout AddressBatch, into report: inout GeocodeReport) throws {
        guard !batch.items.isEmpty else { return }
        let items = batch.items
        batch.items.removeAll()
        report.addressed += try store.write {
            var written = 0
            for (answer, item, remember) in items {
                if remember { try self.remember(answer, for: item) }
                if case .address(let address) = answer {
                    written += try store.setAddress(address, entryKeys: item.keys)
                }
            }
            return written
        }
    }

    // MARK: - Cache

    private func cachedAnswer(cell: String) throws -> GeocodeAnswer? {
        try Self.cachedAnswer(in: store, provider: geocoder.cacheKey, options: options, cell: cell, now: now())
    }

    /// The provider's cached answer for a cell, unless it expired by `now`.
    static func cachedAnswer(
        in store: any GeocodeCacheStore, provider: String, options: Options, cell: String, now: Int64
    ) throws
        -> GeocodeAnswer?
    {
        try store.cachedGeocode(provider: provider, language: options.language, cell: cell, now: now).map { cached in
            cached.address.map(GeocodeAnswer.address) ?? GeocodeAnswer.none
        }
    }

    private func remember(_ answer: GeocodeAnswer, for item: WorkItem) throws {
        let t = now()
        var cached = CachedGeocode(address: nil)
        if case .address(let a) = answer { cached.address = a }
        try store.rememberGeocode(
            cached, provider: geocoder.cacheKey, language: options.language, cell: item.cell, latitude: item.latitude,
            longitude: item.longitude, fetchedAt: t, expiresAt: t + options.negativeLifetimeMilliseconds)
    }

    // MARK: - Provider state (rate limit, pause, block)

    func providerState() throws -> GeocodeProviderState { try store.geocodeProviderState(geocoder.cacheKey) }

    /// Asks the provider; when its answer (or failure) is back, the next request waits a full period from then. The
    /// server then sees two requests at least a period apart, however late this one reached it: on a loaded machine
    /// a request sent on time can arrive late, and the next one, sent on time, too soon after it.
    private func lookup(_ item: WorkItem, isolation: isolated (any Actor)? = #isolation) async throws -> GeocodeAnswer {
        defer {
            if geocoder.isNetwork {
                try? store.noteGeocodeAnswer(
                    provider: geocoder.cacheKey, at: now(), spacing: options.rate.spacingMilliseconds,
                    period: options.rate.periodMilliseconds)
            }
        }
        // A request once sent is seen through, not cancelled with the run (a recording's stop): its answer is
        // written, so the next run (`gpslog geocode`) does not ask the cell again. Its wait is bounded by the
        // provider's deadline for the answer's header and the HTTP client's read timeout for its body.
        let (geocoder, latitude, longitude, language) = (geocoder, item.latitude, item.longitude, options.language)
        return try await Task.detached {
            try await geocoder.lookup(latitude: latitude, longitude: longitude, language: language)
        }.value
    }

    /// Waits until the provider may be asked again, then claims the slot (see `Store.claimGeocodeSlot`).
    private func waitForSlot(isolation: isolated (any Actor)? = #isolation) async throws {
        while true {
            let wait = try store.claimGeocodeSlot(
                provider: geocoder.cacheKey, spacing: options.rate.spacingMilliseconds, now: now)
            if wait == 0 { return }
            try await Task.sleep(for: .milliseconds(wait))
        }
    }

    /// Pauses the provider: at least the minimum, doubling up to the maximum, with up to 10 % jitter; a
    /// Retry-After above zero wins when longer. Returns the end of the pause.
    private func pause(retryAfter: Double?) throws -> Int64 {
        try store.pauseGeocodeProvider(geocoder.cacheKey) { previous in
            // The stored backoff has no jitter, so the doubling stays exact; the jitter only spreads this wait.
            let backoff =
                previous.map { min($0 * 2, options.maximumPauseMilliseconds) } ?? options.minimumPauseMilliseconds
            let jittered = backoff + Int64.random(in: 0...(backoff / 10))
            let wait = max(jittered, Int64((retryAfter ?? 0) * 1000))
            return (backoff, now() + wait)
        }
    }

    private func clearBackoff() throws { try store.clearGeocodeBackoff(geocoder.cacheKey) }

    private func block(_ message: String) throws { try store.blockGeocodeProvider(geocoder.cacheKey, message: message) }

    /// Lifts a 403 block and any pause (`gpslog geocode --reset`).
    public func reset() throws { try store.resetGeocodeProvider(geocoder.cacheKey) }
}

/// 7-decimal coordinates for mark cache keys.
enum Decimal7 {
    static func string(_ v: Double) -> String { String(format: "%.7f", v) }
}

@available(*, unavailable)
extension GeocodeWorker: Sendable {}
