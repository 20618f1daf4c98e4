// SPDX-License-Identifier: MIT
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogSampling
import GPSLogSources
import GPSLogStore

/// What an import produced.
public struct ImportResult: Sendable {
    /// The session made, as stored.
    public var session: Session
    /// Rows stored in it: track points, marks and heading changes.
    public var entries: Int
    /// What the NMEA decoder counted (lines, sentences, bad checksums); nil for the other formats.
    public var statistics: NMEAStatistics?
    /// Track points left out because the point before them had the same time (see `EntryWriter.add`).
    public var repeats = 0

    /// Creates a result from its parts.
    public init(session: Session, entries: Int, statistics: NMEAStatistics?, repeats: Int = 0) {
        self.session = session
        self.entries = entries
        self.statistics = statistics
        self.repeats = repeats
    }
}

/// Imports an NMEA 0183 log into a new session, through the same sampler as the recorder, in one transaction:
/// the session and all its entries are stored, or nothing is.
public struct NMEAImporter {
    /// The sampler's policy; by default every fix is kept (interval 0) while repeats and heading changes are
    /// folded as the recorder folds them.
    public var policy = SamplingPolicy(intervalMilliseconds: 0)
    /// The date for logs that carry none (GGA-only logs).
    public var assumedDate: (year: Int, month: Int, day: Int)?
    /// Entries per insert batch inside the transaction.
    public var batchSize = 2000

    /// An importer with the defaults above.
    public init() {}

    /// Imports a file (or `-` for standard input).
    public func importFile(_ path: String, name: String, mode: TripMode? = nil, into store: any SessionSink) throws
        -> ImportResult
    {
        let reader = NMEAFileReader(path: path, assumedDate: assumedDate)
        var writer = SessionPipeline(sink: store, name: name, mode: mode, policy: policy(for: mode))
        return try store.writeJoiningTransaction {
            let stats = try reader.read { try accept($0, into: &writer) }
            return try finish(&writer, file: path, statistics: stats)
        }
    }

    /// Imports NMEA text held in memory (the bundled sample). `sessionID` fixes the session id (deterministic
    /// golden exports); entry ids are then seeded from it too. With `onlyIfFree`, a session id already taken gives
    /// way to a random one, decided inside the import's transaction (so processes importing at once cannot both
    /// take it).
    public func importText(
        _ text: String, file: String, name: String, mode: TripMode? = nil, sessionID: String? = nil,
        onlyIfFree: Bool = false,
        into store: any SessionSink
    ) throws -> ImportResult {
        var decoder = NMEADecoder(assumedDate: assumedDate)
        return try store.writeJoiningTransaction {
            let id = try sessionID.flatMap { id in try onlyIfFree && store.hasSession(id: id) ? nil : id }
            var writer = SessionPipeline(sink: store, name: name, mode: mode, policy: policy(for: mode), sessionID: id)
            try decoder.decode(text: text) { try accept($0, into: &writer) }
            return try finish(&writer, file: file, statistics: decoder.statistics)
        }
    }

    /// The policy for a trip in `mode`: a plane has no speed limit (as `record --mode plane`).
    private func policy(for mode: TripMode?) -> SamplingPolicy {
        var policy = policy
        if mode == .plane { policy.maxSpeed = nil }
        return policy
    }

    private func accept(_ event: SourceEvent, into writer: inout SessionPipeline) throws {
        switch event {
        case .fix(let fix): try writer.add(fix)
        case .heading(let reading): try writer.add(reading)
        case .resumed: writer.sourceResumed()
        }
        if writer.pendingCount >= batchSize { try writer.flush() }
    }

    private func finish(_ writer: inout SessionPipeline, file: String, statistics: NMEAStatistics) throws
        -> ImportResult
    {
        try writer.finish()
        guard let session = writer.session else {
            throw ImportError.noFixes(
                file: file,
                detail: "\(statistics.lines) lines, \(statistics.sentences) good sentences, "
                    + "\(statistics.badChecksum) bad checksums, \(statistics.epochsWithoutFix) epochs without a fix, "
                    + "\(statistics.undated) undated fixes (give --date for logs without RMC or ZDA)")
        }
        return ImportResult(session: session, entries: writer.storedEntries, statistics: statistics)
    }
}

extension ImportResult {
    /// What a file importer's session holds once its writer finished.
    init(_ written: EntryWriter.Written) {
        self.init(session: written.session, entries: written.entries, statistics: nil, repeats: written.repeats)
    }
}
