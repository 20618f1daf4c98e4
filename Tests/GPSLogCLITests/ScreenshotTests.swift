// SPDX-License-Identifier: MIT
import Foundation
import GPSLogPNG
import GPSLogTestSupport
import Testing

/// The README's pictures of the web view (`docs/img/history.png`, `stats.png`, `day.png`) are what `.ci/screenshots`
/// draws now: the script runs into a temporary folder (headless Chromium, the bundled recording and five generated
/// days, with the places index `make places` builds, which names the places), and each picture must match the
/// committed one but for a few pixels (antialiasing). After a change to
/// the pages, run `.ci/screenshots` and commit the pictures.
@Suite(
    .ownThreads,
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: WebViewTests.chromium),
        "needs chromium (make test installs it)"),
    .enabled(
        if: FileManager.default.fileExists(
            atPath: URL(fileURLWithPath: TestPaths.gpslogBinary).deletingLastPathComponent().path
                + "/places-world.bin"),
        "needs the offline places index beside gpslog, which names the visited places (make test builds it)"))
struct ScreenshotTests {
    /// Pixels whose colour moved by more than this on any channel count as changed.
    static let channelTolerance = 48
    /// At most this share of the pixels may change.
    static let changedShare = 0.005

    @Test(.timeLimit(.minutes(10)))
    func theREADMEsPicturesAreWhatThePagesShowNow() async throws {
        try await withTemporaryDirectory { dir in
            let run = try await onOwnThread {
                try runTool(TestPaths.packageRoot + "/.ci/screenshots", [TestPaths.gpslogBinary, dir])
            }
            #expect(run.status == 0, "\(run.output)")
            for name in ["history", "stats", "day"] {
                let committed = try Self.pixels(TestPaths.packageRoot + "/docs/img/\(name).png")
                let now = try Self.pixels(dir + "/\(name).png")
                #expect(
                    committed.width == now.width && committed.height == now.height,
                    "\(name).png: \(now.width)x\(now.height), committed \(committed.width)x\(committed.height)")
                guard committed.rgba.count == now.rgba.count else { continue }
                var changed = 0
                for i in stride(from: 0, to: now.rgba.count, by: 4) {
                    for c in 0..<3 where abs(Int(now.rgba[i + c]) - Int(committed.rgba[i + c])) > Self.channelTolerance
                    {
                        changed += 1
                        break
                    }
                }
                let share = Double(changed) / Double(now.width * now.height)
                #expect(
                    share <= Self.changedShare,
                    "\(name).png: \(changed) pixels changed (\(share * 100) %): run .ci/screenshots and commit docs/img"
                )
                #expect(now.rgba.contains { $0 != 255 }, "\(name).png is blank")
            }
        }
    }

    static func pixels(_ path: String) throws -> (width: Int, height: Int, rgba: [UInt8]) {
        try PNGDecoder().decode(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }
}
