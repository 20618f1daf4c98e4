// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// The first open of a database made before the compact rows: a progress bar on a terminal's stderr (run under
/// `script`, which gives the command a terminal), nothing on a pipe, and the same sessions afterwards.
@Suite(.ownThreads)
struct UpgradeProgressTests {
    /// A version 18 database (main before issue 23) holding `count` track points in one session.
    func makeOldDatabase(_ path: String, count: Int) throws {
        try GPSLogTestSupport.makeOldDatabase(
            at: path, count: count, columns: "Latitude, Longitude, Altitude, TimeStamp, EntryID",
            values: """
                52 + i * 1e-6, 5 + i * 1e-6, 10, 1700000000000 + i * 1000,
                printf('%08x-%04x-7abc-8def-%012x', (1700000000000 + i * 1000) >> 16, (1700000000000 + i * 1000) & 65535, i)
                """)
    }

    @Test func theFirstOpenShowsItsProgressOnATerminalOnly() throws {
        try withTemporaryDirectory { dir in
            let onTerminal = dir + "/terminal.sqlite"
            let onPipe = dir + "/pipe.sqlite"
            try makeOldDatabase(onTerminal, count: 40_000)
            try makeOldDatabase(onPipe, count: 40_000)

            let terminal = try runGPSLogOnTerminal(["sessions", "--db", onTerminal])
            #expect(terminal.status == 0, "\(terminal.output)")
            for step in ["Compacting entries [", "Counting sessions [", "Compacting the file ["] {
                #expect(terminal.output.contains(step), "\(terminal.output)")
            }
            #expect(terminal.output.contains("Old ride"))

            let piped = try runGPSLog(["sessions"], database: onPipe)
            #expect(piped.status == 0 && piped.stderr.isEmpty, "\(piped.stderr)")
            let listing = piped.stdout.split(separator: "\n")
            #expect(listing.count == 2 && listing[1].contains("40000"))
            #expect(try runGPSLog(["check"], database: onPipe).stdout.contains("every kept figure was right"))
        }
    }
}
