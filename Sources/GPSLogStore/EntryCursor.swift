// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// Streams entries out of a query one row at a time. It owns its statement, which is finalized with it. Another
/// store (PostgreSQL's) makes one from a function that gives the next entry (`init(next:)`), so the readers of
/// `SessionReader` need not know which store they read.
public final class EntryCursor {
    private let statement: Statement?
    private let produce: (() throws -> Entry?)?
    private let read: (Statement) -> Entry
    /// Rows passed over without being read (nil: none).
    private let skips: ((Statement) -> Bool)?
    /// The store's words for a failed step (its path and busy timeout; the cursor may outlive the Store object).
    private let failure: (SQLiteError) -> StoreError
    private var done = false

    init(
        statement: Statement, store: Store, read: @escaping (Statement) -> Entry = { Store.readEntry($0) },
        skipping skips: ((Statement) -> Bool)? = nil
    ) {
        self.statement = statement
        self.read = read
        self.skips = skips
        produce = nil
        let path = store.path
        let busyTimeout = store.busyTimeout
        failure = { StoreError($0, path: path, busyTimeout: busyTimeout) }
    }

    /// A cursor over what `next` gives, until it gives nil; its errors are passed on as they are.
    public init(next: @escaping () throws -> Entry?) {
        statement = nil
        produce = next
        read = { _ in preconditionFailure("a produced cursor reads no statement") }
        skips = nil
        failure = { StoreError($0, path: "", busyTimeout: 0) }
    }

    /// The next entry, or nil at the end.
    /// - Throws: `StoreError` when SQLite cannot read the next row.
    public func next() throws -> Entry? {
        guard !done else { return nil }
        guard let statement else {
            guard let entry = try produce?() else {
                done = true
                return nil
            }
            return entry
        }
        while true {
            let more: Bool
            do {
                more = try statement.step()
            } catch let error as SQLiteError {
                throw failure(error)
            }
            guard more else {
                done = true
                statement.reset()
                return nil
            }
            if let skips, skips(statement) { continue }
            return read(statement)
        }
    }

    /// Calls `body` for each remaining entry.
    public func forEach(_ body: (Entry) throws -> Void) throws {
        while let entry = try next() { try body(entry) }
    }

    /// Every remaining entry, in an array (for results known to be small, and tests).
    public func all() throws -> [Entry] {
        var entries: [Entry] = []
        try forEach { entries.append($0) }
        return entries
    }
}

@available(*, unavailable)
extension EntryCursor: Sendable {}
