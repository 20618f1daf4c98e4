// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// A million-entry session streams through the cursor in order, and with flat memory: the peak resident size of a
/// `gpslog export` of it is that of an export of 10 entries, far below what the session would take as an array
/// (hundreds of MB).
@Suite(.ownThreads)
struct StreamingMemoryTests {
    @Test func aMillionEntrySessionStreamsWithoutMemoryGrowth() throws {
        try withTemporaryStore { store, path in
            let s = try store.createSession(name: "Big", start: Timestamp(milliseconds: 1_700_000_000_000))
            // Fill in SQL, through the Entries view: a recursive CTE writes 1M rows in seconds even in a debug build
            // (and the view's trigger makes the session's kept figures to be counted at the next read).
            try store.write {
                try store.database.run(
                    """
                    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999999)
                    INSERT INTO Entries (Session, Latitude, Longitude, Altitude, HorizontalAccuracy, TimeStamp, Speed, Course,
                                         EntryID, Satellites, HDOP, FixMode)
                    SELECT ?1, 52 + i * 1e-6, 5 + i * 1e-6, 10, 3, 1700000000000 + i * 1000, 1.5, 45,
                           printf('%08x-%04x-7%03x-8%03x-%012x', 1700000000 + i / 1000, i % 65536, i % 4096, i % 4096, i),
                           9, 0.8, 3
                    FROM n
                    """, [.text(s.id)])
            }
            #expect(try store.summary(of: s).entryCount == 1_000_000)

            var count = 0
            var lastTime = Int64.min
            var ordered = true
            var latitudeSum = 0.0
            try store.entries(of: s.id).forEach { entry in
                count += 1
                ordered = ordered && entry.time.milliseconds > lastTime
                lastTime = entry.time.milliseconds
                latitudeSum += entry.latitude
            }
            #expect(count == 1_000_000)
            #expect(ordered)
            #expect(abs(latitudeSum / 1_000_000 - (52 + 499_999.5e-6)) < 1e-6)

            // Memory, measured in a process of its own (this one runs other suites alongside): the real binary
            // exports the session through the same cursor. As [Entry] the session would be > 300 MB; a run that
            // streams stays near its baseline (the GPX output goes to a file, checked for its last point).
            let small = try store.createSession(name: "Small", start: Timestamp(milliseconds: 1_600_000_000_000))
            try store.append(makeEntries(count: 10, start: small.start), to: small.id)
            let folder = (path as NSString).deletingLastPathComponent
            let baseline = try runGPSLogMeasuringMemory(
                ["export", "Small", "--format", "gpx", "--output", folder + "/small.gpx"], database: path,
                outputPath: folder + "/small")
            let big = try runGPSLogMeasuringMemory(
                ["export", "Big", "--format", "gpx", "--output", folder + "/big.gpx"], database: path,
                outputPath: folder + "/big")
            #expect(
                baseline.status == 0 && big.status == 0,
                "\((try? String(contentsOfFile: folder + "/big.err", encoding: .utf8)) ?? "")")
            let size = (try FileManager.default.attributesOfItem(atPath: folder + "/big.gpx")[.size] as? Int) ?? 0
            #expect(size > 80_000_000, "the export wrote all 1M points (\(size) bytes)")
            let growth = big.peakBytes - baseline.peakBytes
            #expect(
                growth < 48 * 1024 * 1024,
                "exporting 1M entries took \(growth / 1024 / 1024) MB more than 10 (peaks \(big.peakBytes / 1024 / 1024) and \(baseline.peakBytes / 1024 / 1024) MB)"
            )
        }
    }
}
