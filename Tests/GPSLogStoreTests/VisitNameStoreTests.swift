// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// A visit's place name kept by the store as it comes from an import (`addVisit`) or `visit rename`, on a real
/// SQLite file: cut to what the `Visits.Name` CHECK allows, which counts Unicode scalars, not characters.
@Suite(.ownThreads)
struct VisitNameStoreTests {
    let arrival = Timestamp(milliseconds: 1_714_543_200_000)

    func visit(name: String?) -> Visit {
        Visit(
            latitude: 46, longitude: 7, horizontalAccuracy: 20, arrival: arrival, departure: nil, address: "Street 1",
            name: name)
    }

    @Test func anImportedVisitKeepsItsName() throws {
        try withTemporaryDirectory { dir in
            let store = try Store(path: dir + "/gpslog.sqlite")
            defer { store.close() }
            let session = try store.createSession(name: "Day", start: arrival)
            try store.addVisit(visit(name: #"Alm <hut> & "Kaser" 🏔"#), to: session.id)
            try store.addVisit(visit(name: "  \t "), to: session.id)
            try store.addVisit(visit(name: nil), to: session.id)
            #expect(try store.visits(of: session.id).map(\.name) == [#"Alm <hut> & "Kaser" 🏔"#, nil, nil])
        }
    }

    /// 150 characters of e and a combining acute accent are 300 scalars: cut by characters they stayed whole and
    /// broke the CHECK (`length(Name) BETWEEN 1 AND 200`), refusing the import or the rename.
    @Test func aLongNameIsCutToWhatTheColumnHolds() throws {
        try withTemporaryDirectory { dir in
            let store = try Store(path: dir + "/gpslog.sqlite")
            defer { store.close() }
            let session = try store.createSession(name: "Day", start: arrival)
            let accented = String(repeating: "e\u{301}", count: 150)
            let key = try store.addVisit(visit(name: accented), to: session.id)
            try store.addVisit(visit(name: String(repeating: "x", count: 5000)), to: session.id)
            var names = try store.visits(of: session.id).map { $0.name ?? "" }
            #expect(names.map(\.unicodeScalars.count) == [TextLimit.placeName, TextLimit.placeName])
            #expect(names.allSatisfy { $0.hasSuffix("…") })
            #expect(try store.setVisitName(accented, keys: [key]) == 1)
            names = try store.visits(of: session.id).map { $0.name ?? "" }
            #expect(names[0].unicodeScalars.count == TextLimit.placeName && names[0].hasSuffix("…"))
        }
    }

    /// SQLite's `length()` stops at a NUL: "\0x" counted 0 and broke the CHECK, so a phone's visit record (or an
    /// import) with such a name was refused. It is kept with U+FFFD in its place.
    @Test func aNameWithANulIsKept() throws {
        try withTemporaryDirectory { dir in
            let store = try Store(path: dir + "/gpslog.sqlite")
            defer { store.close() }
            let session = try store.createSession(name: "Day", start: arrival)
            let key = try store.addVisit(visit(name: "\u{0}x"), to: session.id)
            #expect(try store.visits(of: session.id).map(\.name) == ["\u{FFFD}x"])
            #expect(try store.setVisitName("Hut\u{0}", keys: [key]) == 1)
            #expect(try store.visits(of: session.id).map(\.name) == ["Hut\u{FFFD}"])
        }
    }
}
