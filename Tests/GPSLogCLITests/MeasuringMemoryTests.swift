// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// The memory tests' measure: the peak of the gpslog process alone, whatever the size of the test process that
/// starts it (a full run grows it to hundreds of megabytes, and a peak taken from its own `wait4` of the child
/// included that).
@Suite(.ownThreads)
struct MeasuringMemoryTests {
    @Test func aChildsPeakIsItsOwnWhenTheTestProcessIsLarge() throws {
        try withTemporaryDirectory { dir in
            // 300 MB of this process's memory, touched, held while the child runs.
            let ballast = UnsafeMutableRawPointer.allocate(byteCount: 300 << 20, alignment: 4096)
            defer { ballast.deallocate() }
            memset(ballast, 1, 300 << 20)
            let run = try runGPSLogMeasuringMemory(
                ["sessions"], database: dir + "/gpslog.sqlite", outputPath: dir + "/sessions")
            #expect(run.status == 0)
            #expect(run.peakBytes > 1 << 20 && run.peakBytes < 100 << 20, "\(run.peakBytes >> 20) MB")
            #expect(ballast.load(fromByteOffset: 12345, as: UInt8.self) == 1)
        }
    }
}
