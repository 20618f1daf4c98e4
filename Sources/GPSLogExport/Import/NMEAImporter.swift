// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSampling
import GPSLogSources
import GPSLogStore

/// What an import produced.
public struct ImportResult: Sendable {
    public var session: Session
    public var entries: Int
    public var statistics: NMEAStatistics?
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

    public init() {}

    /// Imports a file (or `-` for standard input).
    public func importFile(_ path: String, name: String, mode: TripMode? = nil, into store: Store) throws -> ImportResult {
        let reader = NMEAFileReader(path: path, assumedDate: assumedDate)
        var sink = SessionSink(store: store, name: name, mode: mode, policy: policy, batchSize: batchSize, sessionID: nil)
        return try store.write {
            let stats = try reader.read { try sink.accept($0) }
            return try sink.finish(file: path, statistics: stats)
        }
    }

    /// Imports NMEA text held in memory (the bundled sample). `sessionID` fixes the session id (deterministic
    /// golden exports); entry ids are then seeded from it too.
    public func importText(_ text: String, file: String, name: String, sessionID: String? = nil, into store: Store) throws -> ImportResult {
        var decoder = NMEADecoder(assumedDate: assumedDate)
        var sink = SessionSink(store: store, name: name, mode: nil, policy: policy, batchSize: batchSize, sessionID: sessionID)
        return try store.write {
            var bytes = Array(text.utf8)
            try bytes.withUnsafeMutableBufferPointer { buffer in
                var start = 0
                for i in 0...buffer.count where i == buffer.count || buffer[i] == 10 || buffer[i] == 13 {
                    if i > start {
                        try decoder.feed(line: UnsafeBufferPointer(rebasing: buffer[start..<i])) { try sink.accept($0) }
                    }
                    start = i + 1
                }
            }
            try decoder.finish { try sink.accept($0) }
            return try sink.finish(file: file, statistics: decoder.statistics)
        }
    }
}

/// Feeds source events through a sampler into a session created at the first fix, in batches.
struct SessionSink {
    let store: Store
    let name: String
    let mode: TripMode?
    var sampler: Sampler
    let batchSize: Int
    let fixedSessionID: String?
    var session: Session?
    var pending: [Entry] = []
    var stored = 0
    /// Row key of the last location entry already flushed, for instance-count updates.
    var lastLocationKey: Int64?
    var lastTime: Timestamp?

    init(store: Store, name: String, mode: TripMode?, policy: SamplingPolicy, batchSize: Int, sessionID: String?) {
        self.store = store
        self.name = name
        self.mode = mode
        self.batchSize = batchSize
        fixedSessionID = sessionID
        sampler = Sampler(policy: policy, seed: sessionID.map(SplitMix64.seed(from:)))
    }

    mutating func accept(_ event: SourceEvent) throws {
        let decision: SampleDecision
        switch event {
        case .fix(let fix):
            decision = sampler.add(fix)
            if session == nil, case .newEntry = decision {
                session = try store.createSession(name: name, start: fix.time, mode: mode, id: fixedSessionID)
            }
        case .heading(let reading):
            decision = sampler.add(reading)
        }
        switch decision {
        case .newEntry(let entry):
            pending.append(entry)
            lastTime = max(lastTime ?? entry.time, entry.time)
            if pending.count >= batchSize { try flush() }
        case .samePlace(let count):
            if let i = pending.lastIndex(where: { !$0.isHeadingChanged && !$0.marked }) {
                pending[i].instanceCount = count
            } else if let key = lastLocationKey {
                try store.incrementInstanceCount(entryKey: key)
            }
        case .dropped:
            break
        }
    }

    mutating func flush() throws {
        guard let session, !pending.isEmpty else { return }
        let keys = try store.appendInTransaction(pending, to: session.id)
        if let i = pending.lastIndex(where: { !$0.isHeadingChanged && !$0.marked }) { lastLocationKey = keys[i] }
        stored += pending.count
        pending.removeAll(keepingCapacity: true)
    }

    mutating func finish(file: String, statistics: NMEAStatistics) throws -> ImportResult {
        try flush()
        guard var session else {
            throw ImportError.noFixes(file: file, detail: "\(statistics.lines) lines, \(statistics.sentences) good sentences, "
                + "\(statistics.badChecksum) bad checksums, \(statistics.epochsWithoutFix) epochs without a fix, "
                + "\(statistics.undated) undated fixes (give --date for logs without RMC or ZDA)")
        }
        let end = lastTime ?? session.start
        try store.finishSession(id: session.id, end: end)
        session.end = end
        return ImportResult(session: session, entries: stored, statistics: statistics)
    }
}
