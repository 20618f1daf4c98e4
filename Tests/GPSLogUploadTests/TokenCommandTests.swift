// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// `--token ''` on a public address used to start an open server. Every command that takes a token refuses an
/// empty, blank or (off loopback) short one before it listens or sends; `timeout` bounds a run that would serve.
@Suite(.ownThreads) struct TokenCommandTests {
    static let timeout = ["/usr/bin/timeout", "20"]

    @Test(arguments: [
        (["--listen", "0.0.0.0:0", "--token", ""], "--token is empty"),
        (["--listen", "0.0.0.0:0", "--token", " "], "--token is empty"),
        (["--listen", "127.0.0.1:0", "--token", ""], "--token is empty"),
        (["--listen", "127.0.0.1:0", "--token", "  \t"], "--token is empty"),
        (["--listen", "127.0.0.1:0", "--token", "two words"], "white space or a control character"),
        (["--listen", "0.0.0.0:0", "--token", "short"], "shorter than 16 characters"),
        (["--listen", "0.0.0.0:0"], "give --token"),
    ])
    func serveRefusesWeakTokens(arguments: [String], words: String) throws {
        try withTemporaryDirectory { dir in
            let r = try runGPSLog(["serve"] + arguments, database: dir + "/db.sqlite", launcher: Self.timeout)
            #expect(r.status != 0 && r.status != 124, "serve started: \(r.stdout)")
            #expect(r.stderr.contains(words), "\(r.stderr)")
            #expect(!r.stdout.contains("Listening"))
        }
    }

    @Test(arguments: ["", " ", "\t"])
    func serveRefusesASetButEmptyEnvironmentToken(value: String) throws {
        try withTemporaryDirectory { dir in
            let r = try runGPSLog(
                ["serve", "--listen", "127.0.0.1:0"], database: dir + "/db.sqlite",
                environment: ["GPSLOG_TOKEN": value],
                launcher: Self.timeout)
            #expect(r.status != 0 && r.status != 124 && r.stderr.contains("$GPSLOG_TOKEN is empty"), "\(r.stderr)")
        }
    }

    @Test func serveOffLoopbackTakesALongEnoughEnvironmentTokenButNotAShortOne() throws {
        try withTemporaryDirectory { dir in
            let r = try runGPSLog(
                ["serve", "--listen", "0.0.0.0:0"], database: dir + "/db.sqlite",
                environment: ["GPSLOG_TOKEN": "tooshort"],
                launcher: Self.timeout)
            #expect(
                r.status != 0 && r.status != 124 && r.stderr.contains("$GPSLOG_TOKEN is shorter than 16"), "\(r.stderr)"
            )
            #expect(!r.stderr.contains("tooshort"))
        }
    }

    @Test(arguments: ["", "   ", "a b"])
    func uploadRefusesEmptyOrBlankTokensWithoutSending(token: String) throws {
        try withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let imported = try runGPSLog(["import", "--sample", "--name", "Sail"], database: db)
            try #require(imported.status == 0, "\(imported.stderr)")
            // Port 9 (discard) on loopback: nothing is listening, and nothing may be tried.
            let r = try runGPSLog(
                ["upload", "Sail", "--url", "http://127.0.0.1:9/", "--token", token], database: db,
                launcher: Self.timeout)
            #expect(r.status != 0 && r.status != 124, "\(r.stdout)")
            #expect(r.stderr.contains("--token"), "\(r.stderr)")
            #expect(!r.stderr.contains("HTTP") && !r.stderr.contains("connect"), "it tried to send: \(r.stderr)")
        }
    }
}
