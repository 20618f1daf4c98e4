// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// A point's attributes (`Entry.attributes`, Extras' `a`): written, read back by every reader, and kept by an edit
/// through the Entries view, which does not show them.
@Suite(.ownThreads)
struct AttributesTests {
    let start = Timestamp(milliseconds: 1_700_000_000_000)
    let attributes = ["alarm": "sos", "note": "<b>\"x\"\\y\n\u{1}z", "ключ": "värde"]

    @Test func attributesComeBackAndSurviveAnEditThroughTheView() throws {
        try withTemporaryStore { store, path in
            let s = try store.createSession(name: "Traccar", start: start)
            var e = Entry(id: "0f0f0f0f-1111-4222-8333-444455556666", latitude: 52.1, longitude: 5.1, time: start)
            e.attributes = attributes
            e.deviceID = "tc"
            let keys = try store.append([e], to: s.id)
            #expect(try store.entries(of: s.id).all().first?.attributes == attributes)
            #expect(try store.entries(of: s.id, fields: .track).all().first?.attributes == attributes)

            // What a user's sqlite3 does: an edit of a column Extras holds, and of one it does not.
            let user = try Database(path: path)
            defer { user.close() }
            try user.execute("UPDATE Entries SET Wifi = 'home', Latitude = 52.2 WHERE Key = \(keys[0])")
            let edited = try #require(try store.entries(of: s.id).all().first)
            #expect(edited.wifi == "home" && edited.latitude == 52.2 && edited.deviceID == "tc")
            #expect(edited.attributes == attributes)
        }
    }
}
