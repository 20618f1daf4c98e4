// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogStore

/// How an import makes sessions of the tracks a file holds (GPX, GeoJSON and CSV importers).
public struct TrackImportOptions {
    /// The name of every session made (default: the track's own name, else the file's, else the file name's stem).
    public var name: String?
    /// One session for the whole file, a new segment at each track's first point (`import --merge`).
    public var merge = false
    /// Import GPX routes (`rte`), each as a session of its points, which have no time (`import --routes`); without
    /// it routes are counted and skipped.
    public var routes = false
    /// Told what the user should know about the file (a namespace read although it is not GPX's, values dropped,
    /// routes skipped): one line each, without the file's name.
    public var notes: (String) -> Void = { _ in }
    /// Google location history only: one session per local day in this zone (`import --split-by day`), named
    /// "NAME YYYY-MM-DD"; nil: one session per file.
    public var splitByDay: TimeZone?

    /// Creates options from their parts; notes are dropped until `notes` is set.
    public init(name: String? = nil, merge: Bool = false, routes: Bool = false) {
        self.name = name
        self.merge = merge
        self.routes = routes
    }
}

/// An importer of a file of tracks (GPX, GeoJSON, CSV): into any target, and into the user's store through a
/// `PipelinedSink` (parsing on the calling thread while a second one stores).
public protocol TrackFileImporter {
    var options: TrackImportOptions { get }
    /// Imports into any target (the user's store, a convert's spool, a dry run), one transaction for the file.
    func importFile(_ path: String, into store: any SessionSink) throws -> [ImportResult]
}

extension TrackFileImporter {
    /// Imports into the user's store, parsing on this thread while a second one stores.
    public func importFile(_ path: String, into store: Store) throws -> [ImportResult] {
        try importFile(path, into: PipelinedSink(store))
    }
}

/// The sessions made of a file's tracks, one after the other. Each track becomes a session named after itself; one
/// with no name of its own, or every one when `--name` is given, takes the file's name, numbered when the file has
/// several ("X (1)", "X (2)"). The first such session is renamed when the second appears, so it is kept open (its
/// entries stored, its end not yet written) until then or the end of the file. With `merge`, every track goes into
/// one session, each after the first starting a new segment (`Entry.startsSegment`) at its first location.
struct SessionSequence {
    let store: any SessionSink
    let options: TrackImportOptions
    /// The sessions finished so far, in file order (a held one has its place).
    private var results: [ImportResult?] = []
    /// The open session.
    private(set) var sink: EntryWriter?
    /// Sessions named after the file so far, and the first of them while it is held (its place in `results`).
    private var numbered = 0
    private var held: (sink: EntryWriter, index: Int, base: String)?
    /// With `merge`: the next location starts a new segment.
    private var segmentPending = false
    /// The open session is the first named after the file (held when it ends).
    private var openIsFirstNumbered = false

    init(store: any SessionSink, options: TrackImportOptions) {
        self.store = store
        self.options = options
    }

    /// True while a track's session is open.
    var isOpen: Bool { sink != nil }

    /// Opens the session of a track that starts at `start`: `ownName` is the track's name, `documentName` the
    /// file's own (GPX metadata), `stem` the file name's (nil or blank: none).
    mutating func begin(
        ownName: String?, documentName: String?, stem: String, start: Timestamp, end: Timestamp? = nil,
        mode: TripMode?, preferredID: String? = nil
    ) throws {
        func named(_ text: String?) -> String? { text.flatMap { $0.trimmedWhitespace.isEmpty ? nil : $0 } }
        let own = named(ownName)
        let fileName = named(documentName) ?? stem
        if options.merge {
            if sink != nil {
                segmentPending = true
                return
            }
            sink = try EntryWriter(
                sink: store, name: options.name ?? named(documentName) ?? own ?? stem, start: start,
                mode: mode, preferredID: preferredID)  // its end: its last entry, whichever track that is
            return
        }
        precondition(sink == nil, "a track's session is open")
        var name = own ?? fileName
        openIsFirstNumbered = false
        if let given = options.name ?? (own == nil ? fileName : nil) {
            numbered += 1
            name = numbered == 1 ? given : "\(given) (\(numbered))"
            openIsFirstNumbered = numbered == 1
            if numbered == 2, var first = held {
                // The file has several: the first is "X (1)".
                try store.renameSession(id: first.sink.session!.id, to: "\(first.base) (1)")
                var result = ImportResult(try first.sink.finish())
                result.session.name = "\(first.base) (1)"
                results[first.index] = result
                held = nil
            }
        }
        sink = try EntryWriter(sink: store, name: name, start: start, end: end, mode: mode, preferredID: preferredID)
    }

    /// A new id for a track point of the open session at `time` (see `EntryWriter.makeTrackPointID`).
    mutating func trackPointID(_ time: Timestamp) -> String { sink!.makeTrackPointID(time) }

    /// A new id for a mark of the open session at `time`.
    mutating func markID(_ time: Timestamp) -> String { sink!.makeID(time) }

    /// `trackPointID`, or `own`, the file's id for the point, when that can be kept (see `EntryWriter.keeping`).
    mutating func trackPointID(_ time: Timestamp, own: String) -> String {
        sink!.trackPointID(keeping: own, at: time)
    }

    /// `markID`, or `own`, the file's id for the mark, when that can be kept.
    mutating func markID(_ time: Timestamp, own: String) -> String {
        sink!.markID(keeping: own, at: time)
    }

    /// The open session.
    var session: Session? { sink?.session }

    /// With `merge`: the next location starts a new segment (a track read before the one being read).
    mutating func beginSegment() {
        if options.merge && sink != nil { segmentPending = true }
    }

    /// Stores an entry of the open session (it has its id).
    mutating func add(_ entry: Entry) throws {
        if segmentPending && !entry.marked && !entry.isHeadingChanged {
            var e = entry
            e.startsSegment = true
            segmentPending = false
            try sink!.add(e)
            return
        }
        try sink!.add(entry)
    }

    /// Ends the track: its session is finished (with `merge`, kept open for the next track).
    mutating func end() throws {
        guard !options.merge, var open = sink else { return }
        sink = nil
        if openIsFirstNumbered && numbered == 1 {
            try open.flush()
            held = (open, results.count, open.session!.name)
            results.append(nil)
            return
        }
        results.append(ImportResult(try open.finish()))
    }

    /// After the file: the sessions made, in file order.
    mutating func finish() throws -> [ImportResult] {
        if var open = sink {
            sink = nil
            results.append(ImportResult(try open.finish()))
        }
        if var first = held {
            results[first.index] = ImportResult(try first.sink.finish())
            held = nil
        }
        return results.compactMap { $0 }
    }
}
