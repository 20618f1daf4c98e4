// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// An entry that has no address yet: the geocoder's work, read in time order.
public struct AddresslessEntry: Sendable, Equatable {
    /// The entry's row key, for `setAddress(_:entryKeys:)`.
    public var key: Int64
    /// Degrees north, WGS 84.
    public var latitude: Double
    /// Degrees east, WGS 84.
    public var longitude: Double
    /// Marks are looked up at their exact point, not by cell.
    public var marked: Bool
    /// Creates an entry from its parts.
    public init(key: Int64, latitude: Double, longitude: Double, marked: Bool) {
        self.key = key
        self.latitude = latitude
        self.longitude = longitude
        self.marked = marked
    }
}

/// A cached answer of a geocoding provider for one cell: an address, or "nothing here" (`address` nil).
public struct CachedGeocode: Sendable, Equatable {
    /// The provider's address; nil: it found nothing there.
    public var address: String?
    /// Creates a cached answer (nil: nothing here).
    public init(address: String?) { self.address = address }
}

/// What the store remembers of a geocoding provider across runs and processes: when it was last asked, a pause
/// it asked for (HTTP 429/503) with the backoff that led to it, and a block (HTTP 403) until the user resets it.
public struct GeocodeProviderState: Sendable, Equatable {
    /// When the provider was last asked (moved later by `noteGeocodeAnswer`), milliseconds since the epoch; nil: never.
    public var lastRequest: Int64?
    /// End of the pause it asked for, milliseconds since the epoch; nil: not paused.
    public var pausedUntil: Int64?
    /// The backoff that led to the pause, milliseconds, without jitter; nil after a success or a reset.
    public var backoff: Int64?
    /// The provider's message with its 403 while it is blocked; nil: not blocked.
    public var blocked: String?
    /// Creates a state from its parts (all nil: never asked).
    public init(lastRequest: Int64? = nil, pausedUntil: Int64? = nil, backoff: Int64? = nil, blocked: String? = nil) {
        self.lastRequest = lastRequest
        self.pausedUntil = pausedUntil
        self.backoff = backoff
        self.blocked = blocked
    }
}

extension Store {
    // MARK: - Work

    /// Calls `body` for every entry without an address in `sessions` (all when nil), in time order.
    public func forEachEntryWithoutAddress(sessions: [String]?, _ body: (AddresslessEntry) throws -> Void) throws {
        try sqlite {
            var sql = "SELECT Key, Latitude, Longitude, Marked FROM EntryRows WHERE Address IS NULL"
            var args: [SQLiteValue] = []
            if let sessions {
                sql +=
                    " AND SessionKey IN (SELECT Key FROM Sessions WHERE ID IN (\(sessions.map { _ in "?" }.joined(separator: ","))))"
                args = sessions.map { .text($0) }
            }
            sql += " ORDER BY TimeStamp, Key"
            let s = try database.makeStatement(sql)
            try s.bind(args)
            while try s.step() {
                try body(
                    AddresslessEntry(
                        key: s.requiredInt64(at: 0), latitude: s.requiredDouble(at: 1),
                        longitude: s.requiredDouble(at: 2),
                        marked: s.requiredInt64(at: 3) == 1))
            }
        }
    }

    /// Writes one address into every entry of `keys` (inside the caller's transaction, or one of its own).
    /// - Returns: how many entries took it.
    @discardableResult
    public func setAddress(_ address: String, entryKeys keys: [Int64]) throws -> Int {
        func update() throws -> Int {
            var written = 0
            for key in keys {
                if try updateAddress(entryKey: key, address: address) { written += 1 }
            }
            return written
        }
        return try writeJoiningTransaction(update)
    }

    // MARK: - Cache

    /// The cached answer for a cell, unless it expired by `now` (milliseconds since the epoch).
    public func cachedGeocode(provider: String, language: String, cell: String, now: Int64) throws -> CachedGeocode? {
        try sqlite {
            let s = try database.cachedStatement(
                "SELECT Status, Address, ExpiresAt FROM GeocodeCache WHERE Provider = ? AND Language = ? AND Cell = ?")
            defer { s.reset() }
            try s.bind([.text(provider), .text(language), .text(cell)])
            guard try s.step() else { return nil }
            if let expires = s.int64(at: 2), expires <= now { return nil }
            return CachedGeocode(address: s.string(at: 0) == "found" ? s.string(at: 1) ?? "" : nil)
        }
    }

    /// Caches an answer for a cell asked at (latitude, longitude): an address for good, "nothing here" until
    /// `expiresAt`.
    public func rememberGeocode(
        _ answer: CachedGeocode, provider: String, language: String, cell: String, latitude: Double, longitude: Double,
        fetchedAt: Int64, expiresAt: Int64?
    ) throws {
        try sqlite {
            try database.run(
                """
                INSERT OR REPLACE INTO GeocodeCache (Provider, Language, Cell, Latitude, Longitude, Status, Address, FetchedAt, ExpiresAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(provider), .text(language), .text(cell), .real(latitude), .real(longitude),
                    .text(answer.address == nil ? "none" : "found"), SQLiteValue(answer.address), .integer(fetchedAt),
                    answer.address == nil ? SQLiteValue(expiresAt) : .null,
                ])
        }
    }

    /// The cells of every cached answer (tests and diagnostics).
    public func cachedGeocodeCells() throws -> [String] {
        try sqlite {
            let s = try database.makeStatement("SELECT Cell FROM GeocodeCache ORDER BY rowid")
            var cells: [String] = []
            while try s.step() { cells.append(s.string(at: 0) ?? "") }
            return cells
        }
    }

    // MARK: - Provider state

    /// The stored state of a provider (all nil when it was never asked).
    public func geocodeProviderState(_ provider: String) throws -> GeocodeProviderState {
        try sqlite {
            let s = try database.cachedStatement(
                "SELECT LastRequestAt, PausedUntil, BackoffMs, Blocked FROM GeocodeProviders WHERE Provider = ?")
            defer { s.reset() }
            try s.bind(provider, at: 1)
            guard try s.step() else { return GeocodeProviderState() }
            return GeocodeProviderState(
                lastRequest: s.int64(at: 0), pausedUntil: s.int64(at: 1), backoff: s.int64(at: 2),
                blocked: s.string(at: 3))
        }
    }

    /// Claims the provider's next request slot if it is due at `now`, `spacing` milliseconds after the last, in one
    /// write transaction, so two processes (a recorder and a backfill) share one rate and a restart does not burst.
    /// - Returns: 0 when the slot was claimed, else how many milliseconds to wait before trying again.
    public func claimGeocodeSlot(provider: String, spacing: Int64, now: () -> Int64) throws -> Int64 {
        try sqlite {
            try write {
                try ensureProvider(provider)
                let due = (try geocodeProviderState(provider).lastRequest ?? Int64.min / 2) + spacing
                let t = now()
                guard t >= due else { return due - t }
                try database.run(
                    "UPDATE GeocodeProviders SET LastRequestAt = ? WHERE Provider = ?", [.integer(t), .text(provider)])
                return 0
            }
        }
    }

    /// Moves the provider's last request forward so that the next slot (`spacing` after it) comes no sooner than
    /// `period` after an answer that came back at `time` (see `GeocodeWorker`: the server measures arrivals).
    public func noteGeocodeAnswer(provider: String, at time: Int64, spacing: Int64, period: Int64) throws {
        try sqlite {
            try write {
                try ensureProvider(provider)
                try database.run(
                    "UPDATE GeocodeProviders SET LastRequestAt = MAX(COALESCE(LastRequestAt, ?1), ?1) WHERE Provider = ?2",
                    [.integer(time + period - spacing), .text(provider)])
            }
        }
    }

    /// Pauses the provider in one write transaction: `nextPause` gets the backoff stored before (nil the first
    /// time) and returns the new backoff and the end of the pause.
    /// - Returns: the end of the pause, milliseconds since the epoch.
    public func pauseGeocodeProvider(_ provider: String, nextPause: (Int64?) -> (backoff: Int64, until: Int64)) throws
        -> Int64
    {
        try sqlite {
            try write {
                try ensureProvider(provider)
                let next = nextPause(try geocodeProviderState(provider).backoff)
                try database.run(
                    "UPDATE GeocodeProviders SET PausedUntil = ?, BackoffMs = ? WHERE Provider = ?",
                    [.integer(next.until), .integer(next.backoff), .text(provider)])
                return next.until
            }
        }
    }

    /// Forgets a backoff after a successful request.
    public func clearGeocodeBackoff(_ provider: String) throws {
        try sqlite {
            try database.run(
                "UPDATE GeocodeProviders SET BackoffMs = NULL, PausedUntil = NULL WHERE Provider = ? AND BackoffMs IS NOT NULL",
                [.text(provider)])
        }
    }

    /// Blocks the provider (it answered 403) until `resetGeocodeProvider`.
    public func blockGeocodeProvider(_ provider: String, message: String) throws {
        try sqlite {
            try ensureProvider(provider)
            try database.run(
                "UPDATE GeocodeProviders SET Blocked = ? WHERE Provider = ?", [.text(message), .text(provider)])
        }
    }

    /// Lifts a block and any pause (`gpslog geocode --reset`).
    public func resetGeocodeProvider(_ provider: String) throws {
        try sqlite {
            try database.run(
                "UPDATE GeocodeProviders SET Blocked = NULL, PausedUntil = NULL, BackoffMs = NULL WHERE Provider = ?",
                [.text(provider)])
        }
    }

    private func ensureProvider(_ provider: String) throws {
        try database.run("INSERT OR IGNORE INTO GeocodeProviders (Provider) VALUES (?)", [.text(provider)])
    }
}
