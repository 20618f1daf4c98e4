// SPDX-License-Identifier: MIT
import Foundation
import GPSLogBundledRecording
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

@Suite(.ownThreads)
struct NMEAImportTests {
    static let fixedID = "5a3b1c2d-0000-4000-8000-000000000001"

    @Test func theSampleImportsTheSameWayEveryTime() throws {
        func importSample() throws -> [Entry] {
            try withTemporaryStore { store, _ in
                let result = try NMEAImporter().importText(
                    Sample.nmea, file: Sample.fileName, name: "Sample", sessionID: Self.fixedID, into: store)
                #expect(result.session.start == Timestamp(iso8601: "2018-08-20T09:47:36Z"))
                #expect(result.session.end == Timestamp(iso8601: "2018-08-20T09:50:03Z"))
                var entries: [Entry] = []
                try store.entries(of: Self.fixedID).forEach { entries.append($0) }
                #expect(entries.count == result.entries)
                return entries
            }
        }
        let first = try importSample()
        #expect(first == (try importSample()))
        #expect(first.contains { $0.isHeadingChanged && $0.heading != nil })
        // Track points carry GGA's satellites (12 in this log) and GSA's fix mode, except the epochs where the
        // receiver sent no GGA (138 GGA for 146 RMC).
        let track = first.filter { !$0.isHeadingChanged }
        let withQuality = track.filter { $0.satellites == 12 && $0.fixMode == .threeD }
        #expect(withQuality.count > track.count * 85 / 100)
    }

    @Test func aFileWithoutFixesImportsNothingAndSaysWhy() throws {
        try withTemporaryStore { store, _ in
            try withTemporaryDirectory { dir in
                let path = dir + "/noise.nmea"
                try "$GPGGA,garbage*00\nhello\n$GPRMC,123519,V,,,,,,,230394,,*00\n".write(
                    toFile: path, atomically: true, encoding: .utf8)
                let error = #expect(throws: ImportError.self) {
                    try NMEAImporter().importFile(path, name: "Noise", into: store)
                }
                #expect(error?.errorDescription?.hasPrefix("\(path): no position fixes to import (3 lines") == true)
                #expect(try store.sessions().isEmpty)
                let missing = #expect(throws: (any Error).self) {
                    try NMEAImporter().importFile(dir + "/absent.nmea", name: "x", into: store)
                }
                #expect((missing as? LocalizedError)?.errorDescription?.contains("absent.nmea") == true)
            }
        }
    }

    @Test(.enabled(if: TestPaths.hasSharedData, "needs ../shared/data"))
    func everyRealLogImportsOrSaysWhyNot() throws {
        let folder = TestPaths.sharedData + "/nmea"
        let logs = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasSuffix(".log") || $0.hasSuffix(".nmea") }.sorted()
        #expect(logs.count >= 15)
        try withTemporaryStore { store, _ in
            for log in logs {
                do {
                    let result = try NMEAImporter().importFile(folder + "/" + log, name: log, into: store)
                    #expect(result.entries > 0, "\(log)")
                    #expect(try store.summary(of: result.session).trackPointCount > 0)
                } catch let error as ImportError {
                    // Only logs with no usable fix may fail: the simulator-mode Garmin (all RMC void), and the
                    // GGA-only GPSBabel log without a date (it imports with --date, checked below).
                    #expect(
                        ["garmin-geko201.log", "gpsbabel-adddate.nmea"].contains(log),
                        "\(log): \(error.localizedDescription)")
                }
            }
            var dated = NMEAImporter()
            dated.assumedDate = (2019, 3, 8)
            let result = try dated.importFile(folder + "/gpsbabel-adddate.nmea", name: "adddate", into: store)
            #expect(result.session.start == Timestamp(iso8601: "2019-03-08T23:56:00Z"))
            #expect(result.session.end! > Timestamp(iso8601: "2019-03-09T00:04:00Z")!)
        }
    }
}
