// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSQLite
import GPSLogStore

/// How fast a provider may be asked: `count` requests per `seconds`, spaced evenly (no bursts).
public struct GeocodeRate: Sendable, Equatable, CustomStringConvertible {
    public var count: Int
    public var seconds: Double
    /// Milliseconds between two requests: the rate's spacing plus 5 % and 50 ms, so network jitter never makes two
    /// requests arrive closer together than the limit (the server measures arrivals, we can only time departures).
    public var spacingMilliseconds: Int64 { Int64((seconds / Double(count) * 1000 * 1.05).rounded(.up)) + 50 }
    public var description: String { seconds == 60 ? "\(count)/min" : seconds == 1 ? "\(count)/s" : "\(count)/\(seconds)s" }

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
    public struct Options: Sendable {
        public var language = "en"
        public var precision = 7
        public var rate = GeocodeRate(count: 1, seconds: 1)
        /// How long a "no address here" answer is trusted.
        public var negativeLifetimeMilliseconds: Int64 = 30 * 86_400_000
        public var minimumPauseMilliseconds: Int64 = 60_000
        public var maximumPauseMilliseconds: Int64 = 3_600_000
        /// Stop the run after this many failures in a row (the network is down).
        public var maxConsecutiveFailures = 3
        public init() {}
    }

    /// The connection the worker reads and writes through (its own: it never shares the recorder's).
    public let store: Store
    let geocoder: any ReverseGeocoder
    let options: Options
    /// Milliseconds since the epoch; replaceable so tests can let an hour pass in no time.
    public var now: () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    /// Every cell this worker has handled over all its runs (the recorder runs one worker many times).
    public private(set) var seenCells = Set<String>()

    public init(store: Store, geocoder: any ReverseGeocoder, options: Options) {
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
    /// - Parameter progress: called with (items done, items in all).
    public func run(sessions: [String]? = nil, progress: ((Int, Int) -> Void)? = nil) async throws -> GeocodeReport {
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
        for (done, item) in items.enumerated() {
            progress?(done, items.count)
            if let cached = try cachedAnswer(cell: item.cell) {
                report.cacheHits += 1
                if case .address(let address) = cached {
                    report.addressed += try write(address, to: item.keys)
                } else {
                    report.negatives += 1
                }
                continue
            }
            if geocoder.isNetwork { try await waitForSlot() }
            report.requests += 1
            do {
                let answer = try await geocoder.lookup(latitude: item.latitude, longitude: item.longitude, language: options.language)
                consecutiveFailures = 0
                // The answer and its addresses land in one transaction: a kill leaves both or neither.
                let written = try store.write {
                    try remember(answer, for: item)
                    if case .address(let address) = answer { return try writeAddress(address, to: item.keys) }
                    return 0
                }
                try clearBackoff()
                if case .address = answer { report.addressed += written } else { report.negatives += 1 }
            } catch let failure as GeocodeFailure {
                switch failure {
                case .rateLimited(_, let retryAfter):
                    report.pausedUntil = Timestamp(milliseconds: try pause(retryAfter: retryAfter)).iso8601()
                    return report
                case .forbidden(let message):
                    try block(message)
                    report.blocked = message
                    return report
                case .transient, .rejected:
                    report.failures += 1
                    consecutiveFailures += 1
                    if consecutiveFailures >= options.maxConsecutiveFailures { return report }
                }
            }
        }
        progress?(items.count, items.count)
        return report
    }

    // MARK: - Work

    /// The entries without an address, grouped by cell in time order; marks are cells of their own.
    func collectWork(sessions: [String]?) throws -> [WorkItem] {
        var sql = "SELECT Key, Latitude, Longitude, Marked FROM Entries WHERE Address IS NULL"
        var args: [SQLiteValue] = []
        if let sessions {
            sql += " AND Session IN (\(sessions.map { _ in "?" }.joined(separator: ",")))"
            args = sessions.map { .text($0) }
        }
        sql += " ORDER BY TimeStamp, Key"
        let s = try store.database.makeStatement(sql)
        try s.bind(args)
        var order: [String] = []
        var items: [String: WorkItem] = [:]
        while try s.step() {
            let key = s.int64(at: 0)!, lat = s.double(at: 1)!, lon = s.double(at: 2)!
            let cell = s.int64(at: 3) == 1
                ? "@" + Decimal7.string(lat) + "," + Decimal7.string(lon)
                : Geohash.encode(latitude: lat, longitude: lon, precision: options.precision)
            if items[cell] == nil {
                order.append(cell)
                items[cell] = WorkItem(cell: cell, latitude: lat, longitude: lon, keys: [])
            }
            items[cell]!.keys.append(key)
        }
        return order.map { items[$0]! }
    }

    private func write(_ address: String, to keys: [Int64]) throws -> Int {
        try store.write { try writeAddress(address, to: keys) }
    }

    /// Inside a transaction.
    private func writeAddress(_ address: String, to keys: [Int64]) throws -> Int {
        for key in keys { try store.updateAddress(entryKey: key, address: address) }
        return keys.count
    }

    // MARK: - Cache

    private func cachedAnswer(cell: String) throws -> GeocodeAnswer? {
        let s = try store.database.cachedStatement(
            "SELECT Status, Address, ExpiresAt FROM GeocodeCache WHERE Provider = ? AND Language = ? AND Cell = ?")
        defer { s.reset() }
        try s.bind([.text(geocoder.cacheKey), .text(options.language), .text(cell)])
        guard try s.step() else { return nil }
        if let expires = s.int64(at: 2), expires <= now() { return nil }
        return s.string(at: 0) == "found" ? .address(s.string(at: 1) ?? "") : GeocodeAnswer.none
    }

    private func remember(_ answer: GeocodeAnswer, for item: WorkItem) throws {
        let t = now()
        var address: SQLiteValue = .null
        var status = "none"
        var expires: SQLiteValue = .integer(t + options.negativeLifetimeMilliseconds)
        if case .address(let a) = answer {
            address = .text(a)
            status = "found"
            expires = .null
        }
        try store.database.run("""
            INSERT OR REPLACE INTO GeocodeCache (Provider, Language, Cell, Latitude, Longitude, Status, Address, FetchedAt, ExpiresAt)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(geocoder.cacheKey), .text(options.language), .text(item.cell), .real(item.latitude), .real(item.longitude),
                  .text(status), address, .integer(t), expires])
    }

    // MARK: - Provider state (rate limit, pause, block)

    struct ProviderState { var lastRequest: Int64?; var pausedUntil: Int64?; var backoff: Int64?; var blocked: String? }

    func providerState() throws -> ProviderState {
        let s = try store.database.cachedStatement("SELECT LastRequestAt, PausedUntil, BackoffMs, Blocked FROM GeocodeProviders WHERE Provider = ?")
        defer { s.reset() }
        try s.bind(geocoder.cacheKey, at: 1)
        guard try s.step() else { return ProviderState() }
        return ProviderState(lastRequest: s.int64(at: 0), pausedUntil: s.int64(at: 1), backoff: s.int64(at: 2), blocked: s.string(at: 3))
    }

    private func ensureRow() throws {
        try store.database.run("INSERT OR IGNORE INTO GeocodeProviders (Provider) VALUES (?)", [.text(geocoder.cacheKey)])
    }

    /// Waits until the provider may be asked again, then claims the slot in a write transaction, so two processes
    /// (a recorder and a backfill) share one rate, and a restart does not burst.
    private func waitForSlot() async throws {
        while true {
            let wait: Int64 = try store.write {
                try ensureRow()
                let last = try providerState().lastRequest ?? Int64.min / 2
                let due = last + options.rate.spacingMilliseconds
                let t = now()
                if t >= due {
                    try store.database.run("UPDATE GeocodeProviders SET LastRequestAt = ? WHERE Provider = ?", [.integer(t), .text(geocoder.cacheKey)])
                    return 0
                }
                return due - t
            }
            if wait == 0 { return }
            try await Task.sleep(for: .milliseconds(wait))
        }
    }

    /// Pauses the provider: at least the minimum, doubling up to the maximum, with up to 10 % jitter; a
    /// Retry-After above zero wins when longer. Returns the end of the pause.
    private func pause(retryAfter: Double?) throws -> Int64 {
        try store.write {
            try ensureRow()
            let previous = try providerState().backoff
            // The stored backoff has no jitter, so the doubling stays exact; the jitter only spreads this wait.
            let backoff = previous.map { min($0 * 2, options.maximumPauseMilliseconds) } ?? options.minimumPauseMilliseconds
            let jittered = backoff + Int64.random(in: 0...(backoff / 10))
            let wait = max(jittered, Int64((retryAfter ?? 0) * 1000))
            let until = now() + wait
            try store.database.run("UPDATE GeocodeProviders SET PausedUntil = ?, BackoffMs = ? WHERE Provider = ?",
                                   [.integer(until), .integer(backoff), .text(geocoder.cacheKey)])
            return until
        }
    }

    private func clearBackoff() throws {
        try store.database.run("UPDATE GeocodeProviders SET BackoffMs = NULL, PausedUntil = NULL WHERE Provider = ? AND BackoffMs IS NOT NULL",
                               [.text(geocoder.cacheKey)])
    }

    private func block(_ message: String) throws {
        try ensureRow()
        try store.database.run("UPDATE GeocodeProviders SET Blocked = ? WHERE Provider = ?", [.text(message), .text(geocoder.cacheKey)])
    }

    /// Lifts a 403 block and any pause (`gpslog geocode --reset`).
    public func reset() throws {
        try store.database.run("UPDATE GeocodeProviders SET Blocked = NULL, PausedUntil = NULL, BackoffMs = NULL WHERE Provider = ?",
                               [.text(geocoder.cacheKey)])
    }
}

/// 7-decimal coordinates for mark cache keys.
enum Decimal7 {
    static func string(_ v: Double) -> String { String(format: "%.7f", v) }
}

@available(*, unavailable)
extension GeocodeWorker: Sendable {}
