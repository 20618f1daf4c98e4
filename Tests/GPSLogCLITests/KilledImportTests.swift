// SPDX-License-Identifier: MIT
import Foundation
import GPSLogStore
import GPSLogTestSupport
import Testing

/// An import alone on its database writes through a rollback journal (`Store.bulkWrite`): kill -9 in the middle of
/// it must leave the database as it was before, in WAL mode again once it is next opened.
struct KilledImportTests {
    /// A GPX track of `count` points, a second apart, written to `path`.
    func writeTrack(count: Int, to path: String) throws {
        var gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="KilledImportTests" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Long</name><trkseg>

            """
        gpx.reserveCapacity(count * 110)
        let start = 1_714_543_200  // 2024-05-01 06:00:00Z
        let formatter = ISO8601DateFormatter()
        for i in 0..<count {
            let time = formatter.string(from: Date(timeIntervalSince1970: Double(start + i)))
            gpx += "<trkpt lat=\"\(52 + Double(i) * 1e-6)\" lon=\"\(5 + Double(i % 1000) * 1e-6)\"><ele>\(i % 50)</ele><time>\(time)</time></trkpt>\n"
        }
        gpx += "</trkseg></trk></gpx>\n"
        try gpx.write(toFile: path, atomically: false, encoding: .utf8)
    }

    @Test func aKilledImportLeavesTheDatabaseAsItWas() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let gpx = dir + "/long.gpx"
            try writeTrack(count: 150_000, to: gpx)
            let sample = try runGPSLog(["import", "--sample"], database: db)
            #expect(sample.status == 0, "\(sample.stderr)")
            let first = try Store(path: db)
            let before = try first.sessions().count
            first.close()  // an open connection would keep the import in the WAL

            let importer = try BackgroundGPSLog(["import", gpx, "--name", "Long"], database: db, folder: dir)
            // Kill it once the rollback journal holds old pages and the database file is being written.
            let journal = db + "-journal"
            let deadline = Date().addingTimeInterval(60)
            var journalSize = 0
            while importer.process.isRunning && Date() < deadline {
                journalSize = ((try? FileManager.default.attributesOfItem(atPath: journal))?[.size] as? Int) ?? 0
                if journalSize > 4096 { break }
                usleep(2_000)
            }
            #expect(journalSize > 4096, "the import wrote no rollback journal before it ended: \(importer.stderr)")
            kill(importer.process.processIdentifier, SIGKILL)
            #expect(importer.wait(timeout: 10) != nil)

            let store = try Store(path: db)
            defer { store.close() }
            #expect(try store.database.scalar("PRAGMA integrity_check")?.string == "ok")
            #expect(try store.database.scalar("PRAGMA journal_mode")?.string == "wal")
            #expect(try store.sessions().count == before)
            #expect(throws: StoreError.self) { try store.resolveSession("Long") }
            #expect(!FileManager.default.fileExists(atPath: journal), "the hot journal was rolled back and removed")

            // The same import, run to the end, stores every point.
            store.close()
            let again = try runGPSLog(["import", gpx, "--name", "Long"], database: db)
            #expect(again.status == 0, "\(again.stderr)")
            let after = try Store(path: db)
            defer { after.close() }
            #expect(try after.summary(of: after.resolveSession("Long")).entryCount == 150_000)
            #expect(try after.database.scalar("PRAGMA journal_mode")?.string == "wal")
        }
    }
}
