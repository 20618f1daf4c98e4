// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// The options a command cannot run without (`prune --older-than`, `plot -o`, `split --at`, `upload --url`) may come
/// from a config file, as any other option; given nowhere, they are reported missing in the parser's own words, with the usage.
@Suite(.ownThreads, .serialized)
struct ConfigRequiredOptionsTests {
    @Test func requiredOptionsMayComeFromTheFile() async throws {
        try await withTemporaryDirectory { dir in
            let environment = ["XDG_CONFIG_HOME": dir + "/xdg", "GPSLOG_SYSTEM_CONFIG": dir + "/system.toml"]
            func gpslog(_ arguments: [String]) async throws -> CommandResult {
                try await runGPSLogAsync(
                    arguments, database: dir + "/db.sqlite", environment: environment, folder: dir)
            }
            let recorded = try await gpslog(["record", "--source", "replay:sample?speed=0", "--name", "Sail"])
            #expect(recorded.status == 0, "\(recorded.stderr)")

            for (line, synopsis) in [
                (["prune"], "--older-than <age>"), (["plot", "Sail"], "--output <output>"),
                (["split", "Sail"], "--at <at>"), (["upload", "Sail"], "--url <url>"),
            ] {
                let missing = try await gpslog(line)
                #expect(missing.status == 64, "\(line): \(missing.stderr)")
                #expect(
                    missing.stderr.contains("Error: Missing expected argument '\(synopsis)'")
                        && missing.stderr.contains("Usage: gpslog \(line[0])"), "\(line): \(missing.stderr)")
            }

            // A receiver for upload, with a database of its own.
            let (server, port) = try await LoopbackHTTP.serve(
                [], database: dir + "/received.sqlite", folder: dir + "/serve")
            defer { kill(server.process.processIdentifier, SIGKILL) }

            let file = dir + "/xdg/gpslog/config.toml"
            try FileManager.default.createDirectory(
                atPath: dir + "/xdg/gpslog", withIntermediateDirectories: true)
            try """
            [prune]
            older-than = "100y"
            dry-run = true

            [plot]
            output = "\(dir)/sail.svg"

            [split]
            at = "2018-08-20T09:49:00Z"

            [upload]
            url = "http://127.0.0.1:\(port)/"
            """.write(toFile: file, atomically: true, encoding: .utf8)
            let pruned = try await gpslog(["prune"])
            #expect(pruned.status == 0 && pruned.stdout.contains("Nothing was recorded before"), "\(pruned.stderr)")
            let plotted = try await gpslog(["plot", "Sail"])
            #expect(plotted.status == 0, "\(plotted.stderr)")
            #expect(FileManager.default.fileExists(atPath: dir + "/sail.svg"))
            let split = try await gpslog(["split", "Sail"])
            #expect(
                split.status == 0 && split.stdout.contains("Split 'Sail' at 2018-08-20T09:49:00Z"), "\(split.stderr)")
            let uploaded = try await gpslog(["upload", "Sail"])
            #expect(uploaded.status == 0, "\(uploaded.stderr)")
            let received = try await runGPSLogAsync(
                ["sessions", "--json"], database: dir + "/received.sqlite", folder: dir)
            // What Sail kept before the split reached the receiver.
            #expect(received.stdout.contains("\"entries\" : 83"), "\(received.stdout)")
            // The file's value is judged as the flag's: a bad one names the file, the line and the key.
            try "[split]\nat = \"soon\"\n".write(toFile: file, atomically: true, encoding: .utf8)
            let bad = try await gpslog(["split", "Sail"])
            #expect(bad.status != 0)
            #expect(bad.stderr.contains("\(file):2: at: --at must be ISO 8601"), "\(bad.stderr)")
            // A check that names the option by its short name blames the file too; one the command line fails is
            // the command line's, not "missing" because the command line alone lacks what the file gives.
            try "[plot]\noutput = \"sail.pdf\"\n".write(toFile: file, atomically: true, encoding: .utf8)
            let pdf = try await gpslog(["plot", "Sail"])
            #expect(pdf.status != 0)
            #expect(pdf.stderr.contains("\(file):2: output: -o must name a .svg or .png file."), "\(pdf.stderr)")
            let narrow = try await gpslog(["plot", "Sail", "--width", "5"])
            #expect(narrow.status == 64)
            #expect(
                narrow.stderr.contains("Error: --width must be from 200 to 4000.")
                    && !narrow.stderr.contains("config.toml"), "\(narrow.stderr)")
        }
    }
}
