// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

extension Store {
    // MARK: - Records a destination confirmed (pause, resume, visits)

    /// The records (`event:KEY`, `visit:KEY:arrival`, ...) of a session that `destination` has confirmed.
    public func sentRecords(session: String, destination: String) throws -> Set<String> {
        try sqlite {
            let s = try database.cachedStatement("SELECT Record FROM SentRecords WHERE Session = ? AND Destination = ?")
            defer { s.reset() }
            try s.bind([.text(session), .text(destination)])
            var out = Set<String>()
            while try s.step() { if let r = s.string(at: 0) { out.insert(r) } }
            return out
        }
    }

    /// Records a confirmed batch: the cursor over the track points (when it moved) and the records the batch
    /// carried, in one transaction.
    public func saveUploadProgress(
        _ p: UploadProgress, records: [String], session: String, destination: String
    ) throws {
        try write {
            try saveUploadProgress(p, session: session, destination: destination)
            try sqlite {
                for record in records {
                    try database.run(
                        "INSERT OR IGNORE INTO SentRecords (Session, Destination, Record) VALUES (?, ?, ?)",
                        [.text(session), .text(destination), .text(record)])
                }
            }
        }
    }

    // MARK: - Server settings (Overland's `set`)

    /// The settings servers sent to `destination`, as kept for the next run, by section and name.
    public func serverSettings(destination: String) throws -> [(setting: ServerSetting, receivedAt: Timestamp)] {
        try sqlite {
            let s = try database.cachedStatement(
                "SELECT Section, Name, Value, ReceivedAt FROM ServerSettings WHERE Destination = ? ORDER BY Section, Name"
            )
            defer { s.reset() }
            try s.bind(destination, at: 1)
            var out: [(ServerSetting, Timestamp)] = []
            while try s.step() {
                out.append(
                    (
                        ServerSetting(
                            section: s.string(at: 0) ?? "top", name: s.string(at: 1) ?? "", value: s.string(at: 2) ?? ""
                        ),
                        Timestamp(milliseconds: s.requiredInt64(at: 3))
                    ))
            }
            return out
        }
    }

    /// Keeps settings a server sent (replacing the same keys), for the next run to `destination`.
    public func saveServerSettings(_ settings: [ServerSetting], destination: String, at time: Timestamp) throws {
        guard !settings.isEmpty else { return }
        try write {
            try sqlite {
                for setting in settings {
                    try database.run(
                        """
                        INSERT OR REPLACE INTO ServerSettings (Destination, Section, Name, Value, ReceivedAt)
                        VALUES (?, ?, ?, ?, ?)
                        """,
                        [
                            .text(destination), .text(setting.section), .text(setting.name), .text(setting.value),
                            .integer(time.milliseconds),
                        ])
                }
            }
        }
    }
}
