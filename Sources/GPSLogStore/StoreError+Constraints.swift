// SPDX-License-Identifier: MIT
import GPSLogSQLite

/// SQLite's constraint failures in the user's words, told apart by the constraint (its kind from the extended result
/// code, and its name: the schema names each CHECK after its rule), not by the wording of SQLite's message.
extension StoreError {
    /// The reason of an entry refused by SQLite (`invalidEntry`). The table is named as users know it: Entries (the
    /// view over EntryRows).
    static func entryReason(_ error: SQLiteError) -> String {
        let name = error.constraintName?.replacingOccurrences(of: "EntryRows.", with: "Entries.")
        switch error.constraintKind {
        case .check?:
            if let name { return Store.explain(rule: name) }
        case .foreignKey?:
            return "\(Store.missingSession) (FOREIGN KEY constraint failed)"
        case .unique?, .primaryKey?:
            if name == "Entries.EntryID" { return Store.duplicateID }
        case nil:
            return error.message
        default:
            break
        }
        return error.message.replacingOccurrences(of: "EntryRows.", with: "Entries.")
    }

    /// The reason of a session refused by SQLite (`invalidSession`): the rule it breaks.
    static func sessionReason(_ error: SQLiteError) -> String {
        if error.constraintKind == .check, let name = error.constraintName { return "CHECK constraint failed: \(name)" }
        return error.message
    }

    /// The reason of a region refused by SQLite (`invalidRegion`): its name or rid in use, or the rule it breaks.
    static func regionReason(_ error: SQLiteError) -> String {
        let columns = error.constraintName?.components(separatedBy: ", ") ?? []
        switch error.constraintKind {
        case .unique? where columns.contains("Regions.Name"):
            return "a region of that name exists (gpslog region remove it first)"
        case .unique? where columns.contains("Regions.RegionID"):
            return "a region with its OwnTracks rid exists under another name"
        case .check?:
            if let name = error.constraintName { return "CHECK constraint failed: \(name)" }
        default:
            break
        }
        return error.message
    }
}
