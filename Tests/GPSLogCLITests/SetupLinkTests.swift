// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// `gpslog config import` of Overland's setup link, then `upload` and `record` with no URL, token or device id on
/// the command line, to a loopback Overland server.
@Suite(.ownThreads, .serialized)
struct SetupLinkTests {
    func permissions(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func importedLinkIsUsedByUploadAndRecord() async throws {
        try await withTemporaryDirectory { dir in
            let server = FlakyOverlandServer(failureRate: 0)
            try await server.start()
            let folder = dir + "/xdg/gpslog"
            let file = folder + "/config.toml"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try "# my gpslog\njson = true\n\n[record]\n# filters\nmin-distance = 50\n".write(
                toFile: file, atomically: true, encoding: .utf8)
            let env = ["XDG_CONFIG_HOME": dir + "/xdg", "GPSLOG_SYSTEM_CONFIG": dir + "/none.toml"]
            func gpslog(_ arguments: [String]) async throws -> CommandResult {
                try await runGPSLogAsync(arguments, database: dir + "/db.sqlite", environment: env, folder: dir)
            }
            let token = "T" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
            let encodedURL = try #require(server.url.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let link = "overland://setup?url=\(encodedURL)&token=\(token)&device_id=pi&unique_id=yes"

            let imported = try await gpslog(["config", "import", link])
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stdout.contains("[upload] url = \"\(server.url)\""), "\(imported.stdout)")
            #expect(
                imported.stdout.contains("Token: *** in ") && imported.stdout.contains("/xdg/gpslog/token (mode 0600).")
            )
            #expect(!imported.stdout.contains(token) && !imported.stderr.contains(token))
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(
                text.hasPrefix("# my gpslog\njson = true\n\n[record]\n# filters\nmin-distance = 50\nsend = "), "\(text)"
            )
            #expect(!text.contains(token))
            #expect(try String(contentsOfFile: folder + "/token", encoding: .utf8) == token + "\n")
            #expect(try permissions(folder + "/token") == 0o600)
            #expect(try permissions(file) == 0o600)
            let uniqueID = try String(contentsOfFile: folder + "/unique-id", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(UUID(uuidString: uniqueID) != nil)

            #expect(try await gpslog(["import", "--sample", "--name", "Sail"]).status == 0)
            let uploaded = try await gpslog(["upload", "Sail"])
            #expect(uploaded.status == 0, "\(uploaded.stderr)")
            #expect(uploaded.stdout.contains("\"sent\""), "upload takes json = true too: \(uploaded.stdout)")
            let batches = server.log
            #expect(!batches.isEmpty)
            #expect(batches.allSatisfy { $0.authorization == "Bearer \(token)" })
            #expect(
                batches.allSatisfy {
                    $0.deviceIDs.allSatisfy { $0 == "pi" } && $0.uniqueIDs.allSatisfy { $0 == uniqueID }
                })

            // record sends to [record] send, with the same token, device id and unique id.
            let recorded = try await gpslog(["record", "--source", "replay:sample?speed=0", "--name", "Live"])
            #expect(recorded.status == 0, "\(recorded.stderr)")
            let live = server.log.dropFirst(batches.count)
            #expect(!live.isEmpty, "\(recorded.stderr)")
            #expect(
                live.allSatisfy { $0.authorization == "Bearer \(token)" && $0.uniqueIDs.allSatisfy { $0 == uniqueID } })
            #expect(live.flatMap(\.deviceIDs).allSatisfy { $0 == "pi" })
            // [record] min-distance = 50 from before the import still applies: 19 entries (157 without).
            #expect(recorded.stdout.contains(": 19 entries"), "\(recorded.stdout)")
            await server.stop()
        }
    }

    @Test func badLinksAreRefusedAndChangeNothing() async throws {
        try await withTemporaryDirectory { dir in
            let file = dir + "/config.toml"
            let original = "# kept\n[record]\nmin-distance = 5\n"
            try original.write(toFile: file, atomically: true, encoding: .utf8)
            for (link, words) in [
                ("owntracks:///config?url=http%3A%2F%2F127.0.0.1%2F&token=abc", "not overland://setup"),
                ("overland://setup?url=ftp%3A%2F%2F127.0.0.1%2F&token=abc", "not an http:// or https:// address"),
                ("overland://setup?url=http%3A%2F%2F127.0.0.1%2F&token=", "the link's token is empty"),
                ("overland://setup?token=abc", "the link has no url="),
            ] {
                let r = try await runGPSLogAsync(["config", "import", "--config", file, link], folder: dir)
                #expect(r.status != 0 && r.stderr.contains(words), "\(link): \(r.stderr)")
            }
            #expect(try String(contentsOfFile: file, encoding: .utf8) == original)
            #expect(!FileManager.default.fileExists(atPath: dir + "/token"))
            // The link from standard input, out of ps.
            let piped = try runGPSLog(
                ["config", "import", "--config", file, "-"],
                input: "overland://setup?url=https%3A%2F%2Fexample.org%2Fapi&token=abc\n")
            #expect(piped.status == 0, "\(piped.stderr)")
            #expect(try String(contentsOfFile: file, encoding: .utf8).contains("url = \"https://example.org/api\""))
            #expect(try String(contentsOfFile: dir + "/token", encoding: .utf8) == "abc\n")
        }
    }
}
