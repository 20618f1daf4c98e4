// SPDX-License-Identifier: MIT
import Foundation
import GPSLogBundledRecording
import GPSLogImportExport
import GPSLogModel
import GPSLogPipeline
import GPSLogSampling
import GPSLogSources
import GPSLogStore
import GPSLogTestSupport
import Testing

/// A sink that keeps what it is given in memory, with keys, as the Store does: the pipeline must give it exactly the
/// rows it gives the database, since it talks to both through `SessionSink` only.
private final class MemorySink: SessionSink {
    var sessions: [Session] = []
    var rows: [Int64: Entry] = [:]
    var order: [Int64] = []
    var transitions: [Transition] = []
    var visits: [Int64: Visit] = [:]
    private var key: Int64 = 0

    func createSession(name: String, start: Timestamp, mode: TripMode?, id: String?, trip: Bool) throws -> Session {
        let session = Session(
            key: Int64(sessions.count + 1), id: id ?? Identifier.uuidV4(), name: name, start: start, end: nil,
            mode: mode)
        sessions.append(session)
        return session
    }
    func hasSession(id: String) throws -> Bool { sessions.contains { $0.id == id } }
    func appendEntries(_ entries: [Entry], to sessionID: String) throws -> [Int64] {
        entries.map { entry in
            key += 1
            rows[key] = entry
            order.append(key)
            return key
        }
    }
    func finishSession(id: String, end: Timestamp) throws {
        if let i = sessions.firstIndex(where: { $0.id == id }) { sessions[i].end = end }
    }
    func renameSession(id: String, to name: String) throws {}
    func importTransaction<T>(expectedBytes: Int?, _ body: () throws -> T) throws -> T { try body() }
    func setInstanceCount(entryKey: Int64, to count: Int) throws { rows[entryKey]?.instanceCount = count }
    func addTransition(_ transition: Transition, to sessionID: String) throws -> Int64 {
        transitions.append(transition)
        return Int64(transitions.count)
    }
    func addVisit(_ visit: Visit, to sessionID: String) throws -> Int64 {
        key += 1
        visits[key] = visit
        return key
    }
    func setDeparture(of visit: Visit) throws { if let k = visit.key { visits[k]?.departure = visit.departure } }

    var entries: [Entry] { order.map { rows[$0]! } }
}

/// What a row is, for comparing two ways of storing it (keys and ids differ by design).
private struct Row: Equatable, CustomStringConvertible {
    var time: Int64, latitude: Double, longitude: Double, count: Int, heading: Bool, marked: Bool
    var trigger: ReportTrigger?
    init(_ e: Entry) {
        (time, latitude, longitude) = (e.time.milliseconds, e.latitude, e.longitude)
        (count, heading, marked, trigger) = (e.instanceCount, e.isHeadingChanged, e.marked, e.trigger)
    }
    var description: String { "\(time) \(latitude),\(longitude) x\(count)\(heading ? " heading" : "")" }
}

/// The recording path, in process, against a real Store: the pipeline the recorder runs, fed the bundled real log.
@Suite(.ownThreads)
struct SessionPipelineTests {
    /// Feeds the bundled log through a pipeline with the recorder's default policy, flushing every `every` events
    /// (the recorder commits on a clock; an import every 2000 rows).
    private func record(into sink: any SessionSink, flushEvery every: Int) throws -> SessionPipeline {
        var pipeline = SessionPipeline(sink: sink, name: "Sail", policy: SamplingPolicy())
        var decoder = NMEADecoder()
        var events = 0
        try decoder.decode(text: Sample.nmea) { event in
            switch event {
            case .fix(let fix): try pipeline.add(fix)
            case .heading(let reading): try pipeline.add(reading)
            case .resumed: pipeline.sourceResumed()
            }
            events += 1
            if events % every == 0 { try pipeline.flush() }
        }
        try pipeline.finish()
        return pipeline
    }

    @Test func aRecordingAndAnImportOfOneLogGiveTheSameRows() throws {
        try withTemporaryStore { recorded, _ in
            try withTemporaryStore { imported, _ in
                // Commits every 7 events: a repeated place whose count grows after its row was committed must
                // update that row, as the importer's one big commit does.
                let pipeline = try record(into: recorded, flushEvery: 7)
                var importer = NMEAImporter()
                importer.policy = SamplingPolicy()
                let result = try importer.importText(Sample.nmea, file: "sample", name: "Sail", into: imported)
                let a = try recorded.entries(of: pipeline.session!.id).all().map(Row.init)
                let b = try imported.entries(of: result.session.id).all().map(Row.init)
                #expect(a.count > 100)
                #expect(a == b)
                #expect(a.contains { $0.count > 1 }, "the sail has repeated places: the test must cover their counts")
                #expect(pipeline.session?.end == result.session.end)
            }
        }
    }

    @Test func theStoreAndAnotherSinkGetTheSameRows() throws {
        try withTemporaryStore { store, _ in
            let memory = MemorySink()
            let toStore = try record(into: store, flushEvery: 50)
            let toMemory = try record(into: memory, flushEvery: 50)
            let stored = try store.entries(of: toStore.session!.id).all().map(Row.init)
            #expect(stored == memory.entries.map(Row.init))
            #expect(toMemory.storedEntries == stored.count)
            #expect(memory.sessions.first?.end == toStore.session?.end)
        }
    }

    /// Regions and stays, decided by their stages, reach the Store through the sink in one run: the transitions, the
    /// fix entries they made, and the visit with its arrival and departure.
    @Test func regionsAndStaysReachTheStore() throws {
        try withTemporaryStore { store, _ in
            let start = Timestamp(milliseconds: 1_700_000_000_000)
            let harbour = Region(
                name: "Harbour", latitude: 52, longitude: 5, radius: 100, regionID: "harbour", created: start)
            var pipeline = SessionPipeline(
                sink: store, naming: .fixed("Day"), policy: SamplingPolicy(),
                stays: StayRules(visits: true), regions: try RegionWatcher.watching([harbour]))
            func fix(_ second: Int, north metres: Double) -> Fix {
                Fix(
                    time: start.adding(milliseconds: Int64(second) * 1000), latitude: 52 + metres / 111_195,
                    longitude: 5, horizontalAccuracy: 5, speed: 0)
            }
            // Sail in from 1 km north, lie in the harbour for ten minutes, sail out again.
            for s in 0..<90 { try pipeline.add(fix(s * 10, north: 1000 - Double(s) * 11)) }
            for s in 90..<150 { try pipeline.add(fix(s * 10, north: 10)) }
            for s in 150..<240 { try pipeline.add(fix(s * 10, north: 10 + Double(s - 150) * 11)) }
            try pipeline.finish()
            let id = try #require(pipeline.session?.id)
            let transitions = try store.transitions(of: id)
            #expect(transitions.map(\.event) == [.enter, .leave])
            #expect(transitions.map(\.region.name) == ["Harbour", "Harbour"])
            let visits = try store.visits(of: id)
            #expect(visits.count == 1)
            let visit = try #require(visits.first)
            #expect(visit.departure != nil && visit.arrival < visit.departure!)
            let made = try store.entries(of: id).all().filter { $0.trigger == .circularRegion }
            #expect(made.map(\.time) == transitions.map(\.time))
        }
    }

    /// A recording that goes on after a trip is a session of its own, named apart from the recording's first part
    /// (`gpslog show Day` finds one session, not two).
    @Test func theRecordingAfterATripIsNamedApart() throws {
        try withTemporaryStore { store, _ in
            let start = Timestamp(milliseconds: 1_700_000_000_000)
            var pipeline = SessionPipeline(sink: store, name: "Day", policy: SamplingPolicy())
            func fix(_ second: Int) -> Fix {
                Fix(
                    time: start.adding(milliseconds: Int64(second) * 1000), latitude: 52 + Double(second) / 11_119,
                    longitude: 5, horizontalAccuracy: 4, speed: 1)
            }
            for s in 0..<10 { try pipeline.add(fix(s)) }
            try pipeline.startTrip(mode: .walk, name: "Summit")
            for s in 10..<20 { try pipeline.add(fix(s)) }
            _ = try pipeline.stopTrip()
            for s in 20..<30 { try pipeline.add(fix(s)) }
            try pipeline.finish()
            let names = try store.sessions().map(\.name)
            #expect(names.count == 3)
            #expect(names.first == "Day" && names.dropFirst().first == "Summit")
            #expect(names.last?.hasPrefix("Day 2023-11-") == true, "\(names)")
            #expect(Set(names).count == 3)
        }
    }
}
