// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

@testable import GPSLogFuzzTargets

/// Every seed and regression input runs through its fuzz target in a plain `swift test`, with the invariants `make
/// fuzz` checks (a broken one stops the test process with its message), so a regression fails `make test` without a
/// fuzz build. The seeds are the committed ones, `Exports/`, and the real files in `../shared/data` when present.
@Suite(.ownThreads, .serialized)  // the targets share one scratch folder and store per process
struct FuzzReplayTests {
    @Test(arguments: FuzzTarget.allCases)
    func everySeedAndRegressionPasses(_ target: FuzzTarget) throws {
        let files = target.seedFiles(packageRoot: TestPaths.packageRoot, sharedData: TestPaths.sharedData)
        let committed = files.filter { $0.contains("/Tests/Fixtures/fuzz/\(target.rawValue)/seeds/") }
        #expect(!committed.isEmpty, "no committed seeds for \(target.rawValue)")
        for path in files {
            let bytes = try #require(FileManager.default.contents(atPath: path), "cannot read \(path)")
            target.run(Array(bytes))
        }
    }

    /// `make fuzz` (and `make test`'s short run) fuzzes every target: `.ci/fuzz`'s default list names them all.
    @Test func theFuzzScriptRunsEveryTarget() throws {
        let script = try String(contentsOfFile: TestPaths.packageRoot + "/.ci/fuzz", encoding: .utf8)
        let line = try #require(script.split(separator: "\n").first { $0.contains("then targets=(") })
        let listed = Set(
            line.split(separator: "(").last!.split(separator: ")").first!.split(separator: " ").map(String.init))
        #expect(listed == Set(FuzzTarget.allCases.map(\.rawValue)))
    }
}
