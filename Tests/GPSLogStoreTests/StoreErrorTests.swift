// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// SQLite's failures leave the Store as `StoreError` with SQLite's own words, so no module above the Store needs the
/// SQLite module to understand them (the recorder's "cannot write" message quotes `failed`'s reason).
@Suite(.ownThreads)
struct StoreErrorTests {
    let start = Timestamp(milliseconds: 1_700_000_000_000)

    @Test func aLockHeldPastTheTimeoutIsBusyAndOtherFailuresKeepSQLitesMessage() throws {
        try withTemporaryStore { store, path in
            let session = try store.createSession(name: "Locked", start: start)
            let impatient = try Store(path: path, busyTimeout: 50)
            defer { impatient.close() }
            // `store` holds the write lock while `impatient` tries to write.
            let thrown = try store.write { () -> (any Error)? in
                do {
                    try impatient.append(makeEntries(count: 1), to: session.id)
                    return nil
                } catch {
                    return error
                }
            }
            #expect(thrown as? StoreError == .busy(path: path, milliseconds: 50))

            impatient.close()
            let closed = #expect(throws: StoreError.self) { _ = try impatient.sessions() }
            guard case .failed(let failedPath, let reason)? = closed else {
                Issue.record("expected StoreError.failed, got \(String(describing: closed))")
                return
            }
            #expect(failedPath == path && reason.contains("is closed"))
            #expect(closed?.errorDescription?.contains(path) == true)
        }
    }
}
