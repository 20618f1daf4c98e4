// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// `gpslog --db PATH SUBCOMMAND ...`, as git, docker and systemctl users write it, works for every subcommand that
/// takes `--db`, with no `$GPSLOG_DB` to fall back on.
@Suite(.serialized)
struct GlobalOptionsFirstTests {
    /// Runs `gpslog --db db arguments...` with `GPSLOG_DB` unset.
    func gpslog(_ db: String, _ arguments: [String]) throws -> CommandResult {
        try runGPSLog(["--db", db] + arguments, database: nil)
    }

    @Test func everySubcommandTakesTheDatabaseBeforeItsName() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/first.sqlite"
            var covered: Set<String> = []
            func expectOK(_ arguments: [String], _ output: String? = nil) throws {
                let r = try gpslog(db, arguments)
                #expect(r.status == 0, "gpslog --db \(db) \(arguments.joined(separator: " ")): \(r.stderr)")
                if let output { #expect(r.stdout.contains(output), "\(arguments): \(r.stdout)") }
                covered.insert(arguments[0])
            }
            try expectOK(["import", "--sample"], "Imported 'IJsselmeer sail (sample)'")
            try expectOK(["sessions"], "IJsselmeer sail (sample)")
            try expectOK(["show", "IJsselmeer sail (sample)"], "Session:")
            try expectOK(["rename", "IJsselmeer sail (sample)", "Sail"])
            try expectOK(["export", "Sail", "--format", "gpx", "-o", dir + "/sail.gpx"])
            #expect(FileManager.default.fileExists(atPath: dir + "/sail.gpx"))
            try expectOK(["geocode", "Sail"])
            try expectOK(["record", "--name", "Fast", "--source", "replay:sample?speed=0"], "Recorded 'Fast'")

            // serve and upload: the database given first receives what is uploaded from it.
            let serveFolder = dir + "/serve"
            try FileManager.default.createDirectory(atPath: serveFolder, withIntermediateDirectories: true)
            let received = dir + "/received.sqlite"
            let server = try BackgroundGPSLog(
                ["--db", received, "serve", "--listen", "127.0.0.1:0"], database: dir + "/unused.sqlite",
                folder: serveFolder)
            defer { kill(server.process.processIdentifier, SIGTERM) }
            #expect(waitUntil(timeout: 20) { server.stdout.contains("Listening on") }, "\(server.stderr)")
            #expect(server.stdout.contains("(database \(received))"))
            covered.insert("serve")
            let url = try #require(server.stdout.split(separator: " ").first { $0.hasPrefix("http://") })
            try expectOK(["upload", "Sail", "--url", String(url)])
            #expect(try runGPSLog(["sessions"], database: received).stdout.split(separator: "\n").count == 2)

            // The recording commands, against a recorder started with the database first.
            let recordFolder = dir + "/record"
            try FileManager.default.createDirectory(atPath: recordFolder, withIntermediateDirectories: true)
            let recorder = try BackgroundGPSLog(
                ["--db", db, "record", "--name", "Live", "--source", "replay:sample?speed=4"],
                database: dir + "/unused.sqlite", folder: recordFolder)
            #expect(
                try waitUntil(timeout: 20) { try gpslog(db, ["status", "--json"]).stdout.contains("\"entries\"") },
                "\(recorder.stderr)")
            try expectOK(["status"], "Live")
            try expectOK(["mark", "Buoy"])
            let sendNow = try gpslog(db, ["send-now"])
            #expect(sendNow.status == 1 && sendNow.stderr.contains("the recorder is not sending"), "\(sendNow.stderr)")
            covered.insert("send-now")
            try expectOK(["stop"], "Stopped recording 'Live'")
            #expect(recorder.wait(timeout: 10) == 0)
            try expectOK(["delete", "Sail", "--yes"], "Deleted 'Sail'")
            #expect(!FileManager.default.fileExists(atPath: dir + "/unused.sqlite"))

            // Every subcommand whose help lists --db was run above with --db first.
            let subcommands = try listedSubcommands()
            let takingDB = try subcommands.filter { try runGPSLog([$0, "--help"]).stdout.contains("--db <path>") }
            #expect(takingDB.count >= 14, "\(subcommands)")
            #expect(Set(takingDB) == covered, "not covered: \(Set(takingDB).subtracting(covered))")
        }
    }

    @Test func bothSpellingsBeforeAndAfterAndHelp() throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/spelled.sqlite"
            #expect(try runGPSLog(["--db=\(db)", "import", "--sample"]).status == 0)
            #expect(try runGPSLog(["sessions", "--db", db]).stdout.contains("IJsselmeer sail (sample)"))
            #expect(try runGPSLog(["--db=\(db)", "sessions", "--json"]).stdout.contains("IJsselmeer sail (sample)"))
            // Given twice, the one nearer the end wins, as for any repeated option.
            let twice = try runGPSLog(["--db", dir + "/other.sqlite", "sessions", "--db", db])
            #expect(twice.stdout.contains("IJsselmeer sail (sample)"))

            let help = try runGPSLog(["--help"])
            #expect(help.status == 0 && help.stdout.contains("--db <path>"))
            let subHelp = try runGPSLog(["--db", db, "sessions", "--help"])
            #expect(subHelp.status == 0 && subHelp.stdout.contains("USAGE: gpslog sessions [--db <path>]"))
            // convert uses no database: a global --db before it is accepted and the database left alone.
            #expect(
                try runGPSLog(["--db", db, "export", "IJsselmeer sail (sample)", "-o", dir + "/s.gpx"]).status == 0)
            let untouched = dir + "/untouched.sqlite"
            let convert = try runGPSLog(["--db", untouched, "convert", dir + "/s.gpx", dir + "/s.geojson"])
            #expect(convert.status == 0, "\(convert.stderr)")
            #expect(!FileManager.default.fileExists(atPath: untouched))
        }
    }
}

/// The subcommands `gpslog --help` lists (the lines under its SUBCOMMANDS headings).
func listedSubcommands() throws -> [String] {
    var inSubcommands = false
    return try runGPSLog(["--help"]).stdout.split(separator: "\n", omittingEmptySubsequences: false).compactMap {
        line -> String? in
        if line.hasSuffix("SUBCOMMANDS:") { inSubcommands = true }
        if line.isEmpty { inSubcommands = false }
        guard inSubcommands, line.hasPrefix("  "), line.dropFirst(2).first?.isLetter == true else { return nil }
        return line.split(separator: " ").first.map(String.init)
    }
}
