// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// OwnTracks' tag and POIs while recording the real hike: `record --tag`, `gpslog tag`, `gpslog mark --poi`.
@Suite(.ownThreads)
struct TagTests {
    @Test func theTagFollowsEveryEntryAndAPOIIsAMarkOwnTracksNames() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let recorder = try BackgroundGPSLog(
                [
                    "record", "--source", "replay:\(StayTests.hike)?speed=1500", "--geocode", "off", "--name", "Hike",
                    "--tag", "Spain 2023",
                ], database: db, folder: dir)
            #expect(waitForStatus(db, timeout: 30) { $0.entries > 20 } != nil, "\(recorder.stderr)")
            #expect(try runGPSLog(["tag"], database: db).stdout == "Tag: Spain 2023\n")
            let poi = try runGPSLog(["mark", "--poi", "delicious seafood"], database: db)
            #expect(poi.status == 0, "\(poi.stderr)")
            #expect(try runGPSLog(["tag", "Portugal"], database: db).stdout == "Tag: Portugal\n")
            let tagged = waitForStatus(db, timeout: 30) { $0.entries > 200 }
            #expect(tagged?.tag == "Portugal")
            #expect(try runGPSLog(["tag", "--clear"], database: db).stdout == "No tag.\n")
            #expect(recorder.wait(timeout: 60) == 0, "\(recorder.stderr)")

            let store = try Store(path: db)
            defer { store.close() }
            let session = try #require(try store.sessions().first)
            var entries: [Entry] = []
            try store.entries(of: session.id).forEach { entries.append($0) }
            // In order: Spain, then Portugal, then none; never back.
            let tags = entries.map(\.tag)
            let runs = tags.reduce(into: [String?]()) { runs, tag in if runs.last != .some(tag) { runs.append(tag) } }
            #expect(runs == ["Spain 2023", "Portugal", nil], "\(runs)")
            let marks = entries.filter(\.marked)
            #expect(marks.count == 1 && marks[0].isPOI && marks[0].label == "delicious seafood")
            #expect(marks[0].tag == "Spain 2023")

            let path = dir + "/hike.jsonl"
            #expect(try runGPSLog(["export", "Hike", "--format", "owntracks", "-o", path], database: db).status == 0)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains(#""poi":"delicious seafood""#))
            #expect(
                text.components(separatedBy: #""tag":"Portugal""#).count - 1 == tags.filter { $0 == "Portugal" }.count)
            let copy = dir + "/copy.sqlite"
            #expect(try runGPSLog(["import", path, "--name", "Back"], database: copy).status == 0)
            let back = try Store(path: copy)
            defer { back.close() }
            var again: [Entry] = []
            try back.entries(of: try #require(try back.sessions().first).id).forEach { again.append($0) }
            #expect(again.map(\.tag) == entries.filter { !$0.isHeadingChanged }.map(\.tag))
            #expect(again.filter(\.isPOI).map(\.label) == ["delicious seafood"])
        }
    }

    @Test func aPOINeedsALabel() throws {
        let r = try runGPSLog(["mark", "--poi"], database: "/nonexistent/db.sqlite")
        #expect(r.status != 0 && r.stderr.contains("--poi needs a label"))
    }
}
