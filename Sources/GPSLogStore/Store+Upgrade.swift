// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

/// Where the long work of opening a database made by an older gpslog stands (see `Store.init`'s `onUpgrade`).
public struct UpgradeProgress: Sendable, Equatable {
    /// What is being done, in a few words ("Counting sessions").
    public var step: String
    /// Entries done, of about `total`.
    public var done: Int
    public var total: Int
}

extension Store {
    /// The schema version that brought kept figures (SessionSummaries).
    static let summariesVersion = 19

    /// The work after the migration scripts that a database from before `version` needs: its sessions' figures,
    /// counted once now rather than at the first `sessions` (which would take as long as it took before them).
    func upgrade(from version: Int, onUpgrade: ((UpgradeProgress) -> Void)?) throws {
        guard version > 0 && version < Store.summariesVersion else { return }
        try sqlite {
            // About as many entries as the largest key: a total for the bar without reading every row.
            let total = Int(try database.scalar("SELECT MAX(Key) FROM Entries")?.int64 ?? 0)
            var done = 0
            for session in try sessions() where try keptSummary(sessionKey: session.key) == nil {
                done += try summaryFigures(of: session).entryCount
                onUpgrade?(UpgradeProgress(step: "Counting sessions", done: done, total: max(total, done)))
            }
        }
    }
}
