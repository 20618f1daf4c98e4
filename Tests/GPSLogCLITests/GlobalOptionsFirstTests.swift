// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// `gpslog --db PATH SUBCOMMAND ...`, as git, docker and systemctl users write it, works for every subcommand that
/// takes `--db`, with no `$GPSLOG_DB` to fall back on.
@Suite(.ownThreads, .serialized)
struct GlobalOptionsFirstTests {
    /// Runs `gpslog --db db arguments...` with `GPSLOG_DB` unset.
    func gpslog(_ db: String, _ arguments: [String]) async throws -> CommandResult {
        try await runGPSLogAsync(
            ["--db", db] + arguments, database: nil, folder: URL(fileURLWithPath: db).deletingLastPathComponent().path)
    }

    @Test func everySubcommandTakesTheDatabaseBeforeItsName() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/first.sqlite"
            var covered: Set<String> = []
            func expectOK(_ arguments: [String], _ output: String? = nil) async throws {
                let r = try await gpslog(db, arguments)
                #expect(r.status == 0, "gpslog --db \(db) \(arguments.joined(separator: " ")): \(r.stderr)")
                if let output { #expect(r.stdout.contains(output), "\(arguments): \(r.stdout)") }
                covered.insert(arguments[0])
            }
            try await expectOK(["import", "--sample"], "Imported 'IJsselmeer sail (sample)'")
            try await expectOK(["sessions"], "IJsselmeer sail (sample)")
            try await expectOK(["show", "IJsselmeer sail (sample)"], "Session:")
            try await expectOK(["last"], "Newest session: 'IJsselmeer sail (sample)'")
            try await expectOK(["check"], "integrity_check: ok")
            try await expectOK(["visits", "IJsselmeer sail (sample)"], "No visits")
            try await expectOK(["events", "IJsselmeer sail (sample)"], "No region transitions")
            try await expectOK(["devices"], "No OwnTracks devices")
            try await expectOK(["rename", "IJsselmeer sail (sample)", "Sail"])
            try await expectOK(["export", "Sail", "--format", "gpx", "-o", dir + "/sail.gpx"])
            try await expectOK(["plot", "Sail", "-o", dir + "/sail.svg"])
            #expect(FileManager.default.fileExists(atPath: dir + "/sail.gpx"))
            try await expectOK(["geocode", "Sail"])
            try await expectOK(["stats"], "Distance")
            try await expectOK(["timeline", "2018-08-20"], "2018-08-20")
            // What would go reads the cursors alone: no server is asked.
            try await expectOK(["sync", "postgres://gpslog@db.example/fleet", "--dry-run"], "Would send")
            try await expectOK(["record", "--name", "Fast", "--source", "replay:sample?speed=0"], "Recorded 'Fast'")
            try await expectOK(["split", "Fast", "--at", "2018-08-20T09:49:00Z"], "Split 'Fast'")
            try await expectOK(["merge", "Fast", "Fast (2)"], "Merged 'Fast (2)'")
            try await expectOK(["prune", "--older-than", "100y", "--dry-run"], "Nothing was recorded before")

            // serve and upload: the database given first receives what is uploaded from it.
            let serveFolder = dir + "/serve"
            try FileManager.default.createDirectory(atPath: serveFolder, withIntermediateDirectories: true)
            let received = dir + "/received.sqlite"
            let server = try BackgroundGPSLog(
                ["--db", received, "serve", "--listen", "127.0.0.1:0"], database: dir + "/unused.sqlite",
                folder: serveFolder)
            defer { kill(server.process.processIdentifier, SIGTERM) }
            #expect(await waitUntilAsync(timeout: 20) { server.stdout.contains("Listening on") }, "\(server.stderr)")
            #expect(server.stdout.contains("(database \(received))"))
            covered.insert("serve")
            let url = try #require(server.stdout.split(separator: " ").first { $0.hasPrefix("http://") })
            try await expectOK(["upload", "Sail", "--url", String(url)])
            #expect(
                try await runGPSLogAsync(["sessions"], database: received, folder: dir).stdout.split(separator: "\n")
                    .count == 2)

            // The recording commands, against a recorder started with the database first.
            let recordFolder = dir + "/record"
            try FileManager.default.createDirectory(atPath: recordFolder, withIntermediateDirectories: true)
            let recorder = try BackgroundGPSLog(
                ["--db", db, "record", "--name", "Live", "--source", "replay:sample?speed=1"],
                database: dir + "/unused.sqlite", folder: recordFolder)
            #expect(
                try await waitUntilAsync(timeout: 20) {
                    try await gpslog(db, ["status", "--json"]).stdout.contains("\"entries\"")
                },
                "\(recorder.stderr)")
            try await expectOK(["status"], "Live")
            try await expectOK(["mark", "Buoy"])
            try await expectOK(["monitoring"], "interval")
            try await expectOK(["trip"], "No trip is running")
            try await expectOK(["tag"], "No tag.")
            let sendNow = try await gpslog(db, ["send-now"])
            #expect(sendNow.status == 1 && sendNow.stderr.contains("the recorder is not sending"), "\(sendNow.stderr)")
            covered.insert("send-now")
            try await expectOK(["stop"], "Stopped recording 'Live'")
            #expect(await recorder.exitStatus(timeout: 30) == 0)
            try await expectOK(["delete", "Sail", "--yes"], "Deleted 'Sail'")
            #expect(!FileManager.default.fileExists(atPath: dir + "/unused.sqlite"))

            // Every subcommand whose help lists --db was run above with --db first.
            let subcommands = try await listedSubcommands(folder: dir)
            var takingDB: [String] = []
            for subcommand in subcommands
            where try await runGPSLogAsync([subcommand, "--help"], folder: dir).stdout.contains("--db <path>") {
                takingDB.append(subcommand)
            }
            #expect(takingDB.count >= 14, "\(subcommands)")
            #expect(Set(takingDB) == covered, "not covered: \(Set(takingDB).subtracting(covered))")
        }
    }

    @Test func bothSpellingsBeforeAndAfterAndHelp() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/spelled.sqlite"
            #expect(try await runGPSLogAsync(["--db=\(db)", "import", "--sample"], folder: dir).status == 0)
            #expect(
                try await runGPSLogAsync(["sessions", "--db", db], folder: dir).stdout.contains(
                    "IJsselmeer sail (sample)"))
            #expect(
                try await runGPSLogAsync(["--db=\(db)", "sessions", "--json"], folder: dir).stdout.contains(
                    "IJsselmeer sail (sample)"))
            // Given twice, the one nearer the end wins, as for any repeated option.
            let twice = try await runGPSLogAsync(["--db", dir + "/other.sqlite", "sessions", "--db", db], folder: dir)
            #expect(twice.stdout.contains("IJsselmeer sail (sample)"))

            let help = try await runGPSLogAsync(["--help"], folder: dir)
            #expect(help.status == 0 && help.stdout.contains("--db <path>"))
            let subHelp = try await runGPSLogAsync(["--db", db, "sessions", "--help"], folder: dir)
            #expect(subHelp.status == 0 && subHelp.stdout.contains("USAGE: gpslog sessions [--db <path>]"))
            // convert uses no database: a global --db before it is accepted and the database left alone.
            #expect(
                try await runGPSLogAsync(
                    ["--db", db, "export", "IJsselmeer sail (sample)", "-o", dir + "/s.gpx"], folder: dir
                ).status == 0)
            let untouched = dir + "/untouched.sqlite"
            let convert = try await runGPSLogAsync(
                ["--db", untouched, "convert", dir + "/s.gpx", dir + "/s.geojson"], folder: dir)
            #expect(convert.status == 0, "\(convert.stderr)")
            #expect(!FileManager.default.fileExists(atPath: untouched))
        }
    }
}

/// The subcommands `gpslog --help` lists (the lines under its SUBCOMMANDS headings).
func listedSubcommands(folder: String) async throws -> [String] {
    var inSubcommands = false
    return try await runGPSLogAsync(["--help"], folder: folder).stdout.split(
        separator: "\n", omittingEmptySubsequences: false
    ).compactMap {
        line -> String? in
        if line.hasSuffix("SUBCOMMANDS:") { inSubcommands = true }
        if line.isEmpty { inSubcommands = false }
        guard inSubcommands, line.hasPrefix("  "), line.dropFirst(2).first?.isLetter == true else { return nil }
        return line.split(separator: " ").first.map(String.init)
    }
}
