// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// A session whose kept figures (SessionSummaries) were not those of its entries, and were counted again.
public struct SummaryRepair: Sendable, Equatable {
    /// The session counted again.
    public var session: Session
    /// The figures that differed, by their SessionSummaries column names; empty when the session had no row.
    public var fields: [String]
    /// Whether the recount was written (false in a check that only looks).
    public var repaired: Bool
}

/// What `checkSummaries` found.
public struct SummaryCheck: Sendable, Equatable {
    /// Sessions counted and compared.
    public var sessions = 0
    /// Entries counted, in all.
    public var entries = 0
    /// Sessions whose kept figures differed from the count (written again only with `repair`).
    public var repairs: [SummaryRepair] = []
    /// SessionSummaries rows of sessions that no longer exist (removed when repairing).
    public var orphanRows = 0
    /// Sessions another process wrote to during every one of their counts (a recording): not compared this time.
    public var unsettled: [Session] = []
}

extension Store {
    /// Counts every session again from its entries and compares the result with its kept figures; with `repair`,
    /// writes the recount where they differ and removes rows of sessions that are gone.
    ///
    /// Each session is counted in a read transaction and repaired in the same one, so another process may keep
    /// writing meanwhile: a write it commits during the count makes the repair fail (the count would be stale), and
    /// that session is counted again.
    /// - Parameters:
    ///   - repair: write the recounts and remove the orphan rows; false only looks.
    ///   - progress: called with the entries counted so far and the total (from the kept figures).
    /// - Returns: what was counted, what differed (and whether it was repaired), and the sessions left unsettled.
    /// - Throws: `StoreError` when SQLite fails (`busy` for a lock held past the timeout).
    public func checkSummaries(repair: Bool = true, progress: ((Int, Int) -> Void)? = nil) throws -> SummaryCheck {
        try sqlite {
            var check = SummaryCheck()
            let all = try sessions()
            let total = try all.reduce(0) { $0 + (try keptSummary(sessionKey: $1.key)?.entryCount ?? 0) }
            for session in all {
                guard let (kept, recount, days) = try countAgain(session, repair: repair) else {
                    check.unsettled.append(session)
                    continue
                }
                check.sessions += 1
                check.entries += recount.entryCount
                progress?(check.entries, max(total, check.entries))
                if kept != recount || !days.isEmpty {
                    check.repairs.append(
                        SummaryRepair(
                            session: session, fields: (kept.map { $0.differences(from: recount) } ?? []) + days,
                            repaired: repair))
                }
            }
            check.orphanRows = Int(
                try database.scalar(
                    "SELECT COUNT(*) FROM SessionSummaries WHERE Session NOT IN (SELECT Key FROM Sessions)")?.int64 ?? 0
            )
            if repair && check.orphanRows > 0 {
                try write {
                    try database.run("DELETE FROM SessionSummaries WHERE Session NOT IN (SELECT Key FROM Sessions)")
                }
            }
            return check
        }
    }

    /// The session's kept figures and a recount from the same snapshot, and the days (DaySummaries, DayCells) whose
    /// kept figures differ from a recount; the recount written over them when they differ and `repair` is set
    /// (counted again when another process wrote in between, up to ten times; nil when it wrote in between every
    /// time, as a recorder committing every second does).
    private func countAgain(_ session: Session, repair: Bool) throws -> (
        kept: KeptSummary?, recount: KeptSummary, days: [String]
    )? {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try database.transaction(.deferred) {
                    let kept = try keptSummary(sessionKey: session.key)
                    let recount = try recountSummary(sessionKey: session.key)
                    if repair && kept != recount { try saveSummary(recount, sessionKey: session.key) }
                    let days = try countDays(sessionKey: session.key)
                    let differences = Store.dayDifferences(
                        kept: try keptDays(sessionKey: session.key), recount: days)
                    if repair && !differences.isEmpty { try saveDays(days, sessionKey: session.key) }
                    return (kept, recount, differences)
                }
            } catch let error as SQLiteError where error.isBusy {
                // Another process wrote since the count began: count again, or leave it for the next check.
                if attempt >= 10 { return nil }
            }
        }
    }

    /// `integrityProblems()` on a connection of its own, read-only, for a file the Store could not open or read
    /// (a damaged page stops a migration or a count before the check can say what is wrong); nil when even the
    /// check cannot run.
    public static func integrityProblems(ofFileAt path: String) -> [String]? {
        guard let database = try? Database(path: path, mode: .readOnly) else { return nil }
        defer { database.close() }
        var lines: [String] = []
        do {
            let s = try database.makeStatement("PRAGMA integrity_check")
            while try s.step() { lines.append(s.string(at: 0) ?? "") }
            return lines.isEmpty ? nil : lines == ["ok"] ? [] : lines
        } catch let error as SQLiteError where error.isCorruptFile {
            // What the check found before a page stopped it; nothing when the schema itself cannot be read.
            return lines.isEmpty
                ? ["the schema (sqlite_schema) cannot be read: \(error.message)"]
                : lines + ["(the check stopped there: \(error.message))"]
        } catch {
            return nil
        }
    }

    /// SQLite's own check of the file (`PRAGMA integrity_check`: every page, index and constraint): nothing when
    /// it is sound, else what it found, line by line.
    public func integrityProblems() throws -> [String] {
        try sqlite {
            let s = try database.makeStatement("PRAGMA integrity_check")
            var lines: [String] = []
            while try s.step() { lines.append(s.string(at: 0) ?? "") }
            return lines == ["ok"] ? [] : lines
        }
    }
}
