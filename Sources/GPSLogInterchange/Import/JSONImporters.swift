// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogStore

/// Imports Overland batch bodies (`{"locations":[Feature, ...]}`, as the app POSTs them and `export --format
/// overland` writes them): one session per file; features without a Point geometry and Overland's records (a
/// `properties.action`, a `type: trip`) are not locations: visits are stored as the session's visits, the others
/// skipped; CoreLocation's -1 means unknown; `trip` gives the mode and start.
public struct OverlandImporter {
    public var name: String?
    public init() {}

    public func importFile(_ path: String, into store: Store) throws -> [ImportResult] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImportError.unreadable(file: path, reason: "no such readable file")
        }
        let payload = try OverlandPayload(data, source: path)
        let entries = payload.entries
        let mode = payload.mode
        guard let first = entries.map(\.time).min() else {
            throw ImportError.noFixes(file: path, detail: "no location with a Point geometry")
        }
        let start = payload.tripStart.map { min($0, first) } ?? first
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        return try store.write {
            var sink = try EntrySink(store: store, name: name ?? stem, start: start, mode: mode, preferredID: nil)
            for var e in entries.sorted(by: { $0.time < $1.time }) {
                e.id = sink.makeID(e.time)
                try sink.add(e)
            }
            let result = try sink.finish()
            // Visit records: an arrival, then the same visit with its departure; one row each.
            var visits: [Timestamp: Visit] = [:]
            for (_, v) in payload.visits where visits[v.arrival]?.departure == nil { visits[v.arrival] = v }
            for v in visits.values.sorted(by: { $0.arrival < $1.arrival }) {
                try store.addVisit(v, to: result.session.id)
            }
            return [result]
        }
    }
}

/// Imports OwnTracks location messages: JSON lines, or the OwnTracks Recorder's `.rec` files (`time TAB topic TAB
/// JSON`), streamed line by line. Other `_type`s (transition, waypoint, lwt) are skipped; `t: u` marks a point as
/// a user mark; `vel` is km/h.
public struct OwnTracksImporter {
    public var name: String?
    public init() {}

    public func importFile(_ path: String, into store: Store) throws -> [ImportResult] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ImportError.unreadable(file: path, reason: "no such readable file")
        }
        defer { try? handle.close() }
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        return try store.write {
            var sink: EntrySink?
            var lineNumber = 0
            var buffer = Data()
            func handleLine(_ raw: Data) throws {
                lineNumber += 1
                guard let brace = raw.firstIndex(of: UInt8(ascii: "{")) else { return }
                guard let location = try OwnTracksMessage.location(Data(raw[brace...]), source: path, line: lineNumber)
                else { return }
                if sink == nil {
                    sink = try EntrySink(
                        store: store, name: name ?? stem, start: location.time, mode: nil, preferredID: nil)
                }
                var e = location
                e.id = sink!.makeID(e.time)
                try sink!.add(e)
            }
            while true {
                let chunk = handle.readData(ofLength: 1 << 16)
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 10) {
                    try handleLine(buffer[buffer.startIndex..<newline])
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
            }
            if !buffer.isEmpty { try handleLine(buffer) }
            guard var open = sink else {
                throw ImportError.noFixes(file: path, detail: "no OwnTracks location message")
            }
            return [try open.finish()]
        }
    }
}
