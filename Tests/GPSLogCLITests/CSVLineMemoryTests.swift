// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// A CSV line of 100 MB of commas: its fields were kept until the line ended (2.17 GB at the peak) before the row was
/// refused for having more fields than the header. The limits now apply as the bytes arrive.
@Suite(.ownThreads)
struct CSVLineMemoryTests {
    @Test func aHundredMegabyteLineOfCommasIsRefusedInLittleMemory() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/commas.csv"
            #expect(FileManager.default.createFile(atPath: path, contents: nil))
            let handle = try #require(FileHandle(forWritingAtPath: path))
            handle.write(Data("latitude,longitude,time\n52.1,5.1,2024-05-01T08:00:00Z\n".utf8))
            let commas = Data(repeating: UInt8(ascii: ","), count: 1 << 20)
            for _ in 0..<100 { handle.write(commas) }
            handle.write(Data("\n".utf8))
            try handle.close()
            let run = try runGPSLogMeasuringMemory(
                ["import", path], database: dir + "/gpslog.sqlite", outputPath: dir + "/import")
            let err = try String(contentsOfFile: dir + "/import.err", encoding: .utf8)
            #expect(run.status != 0)
            #expect(err.contains("commas.csv:3") && err.contains("more than 4096 fields in a record"), "\(err)")
            #expect(run.peakBytes < 100 << 20, "\(run.peakBytes >> 20) MB")
        }
    }
}
