// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// An import alone on its database writes through a rollback journal (`Store.bulkWrite`): kill -9 in the middle of
/// it must leave the database as it was before, in WAL mode again once it is next opened.
@Suite(.ownThreads)
struct KilledImportTests {
    /// A GPX track of `count` points, a second apart, written to `path` in chunks (memory stays small: other
    /// suites measure this process's peak memory while this runs).
    func writeTrack(count: Int, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path)
        else {
            throw CocoaError(.fileWriteUnknown)
        }
        defer { try? file.close() }
        var chunk = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="KilledImportTests" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Long</name><trkseg>

            """
        let start = Timestamp(milliseconds: 1_714_543_200_000)  // 2024-05-01 06:00:00Z
        for i in 0..<count {
            let time = start.adding(milliseconds: Int64(i) * 1000).iso8601()
            chunk +=
                "<trkpt lat=\"\(52 + Double(i) * 1e-6)\" lon=\"\(5 + Double(i % 1000) * 1e-6)\"><ele>\(i % 50)</ele><time>\(time)</time></trkpt>\n"
            if chunk.utf8.count > 256 * 1024 {
                try file.write(contentsOf: Data(chunk.utf8))
                chunk = ""
            }
        }
        chunk += "</trkseg></trk></gpx>\n"
        try file.write(contentsOf: Data(chunk.utf8))
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
            // Kill it once the journal is hot: its header carries the magic number, which SQLite writes (with
            // synchronous FULL) only after syncing the journal and before it changes any page of the database.
            let journal = db + "-journal"
            let magic: [UInt8] = [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]
            let deadline = Date().addingTimeInterval(60)
            var hot = false
            while importer.process.isRunning && Date() < deadline && !hot {
                if let handle = FileHandle(forReadingAtPath: journal) {
                    hot = (try? handle.read(upToCount: 8)).map { Array($0) == magic } ?? false
                    try? handle.close()
                }
                if !hot { usleep(1_000) }
            }
            #expect(hot, "the import wrote no hot rollback journal before it ended: \(importer.stderr)")
            kill(importer.process.processIdentifier, SIGKILL)
            #expect(importer.wait(timeout: 10) != nil)

            let store = try Store(path: db)
            defer { store.close() }
            #expect(try store.database.scalar("PRAGMA integrity_check")?.string == "ok")
            #expect(try store.database.scalar("PRAGMA journal_mode")?.string == "wal")
            #expect(try store.sessions().count == before)
            #expect(throws: StoreError.self) { try store.resolveSession("Long") }
            #expect(!FileManager.default.fileExists(atPath: journal), "the hot journal was played back and removed")

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
