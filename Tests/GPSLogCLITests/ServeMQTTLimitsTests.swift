// SPDX-License-Identifier: MIT
import Foundation
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `serve --mqtt` at its seams with a real Mosquitto: a broker that refuses the session or speaks no MQTT is asked
/// again with backoff and named once at warning level; a message of 100 MB never reaches serve's memory.
@Suite(
    .ownThreads,
    .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto and mosquitto-clients (make test installs them)"))
struct ServeMQTTLimitsTests {
    static func lines(_ text: String, containing words: String) -> [Substring] {
        text.split(separator: "\n").filter { $0.contains(words) }
    }

    /// `gpslog serve` in the background, its standard output a pipe this test holds (a file handed over as
    /// `BackgroundGPSLog` does was seen closed in the child: serve died writing its "Listening" line), its standard
    /// error in `dir/serve.err`.
    final class Serve {
        let process = Process()
        let output = Pipe()
        let errPath: String

        init(_ arguments: [String], dir: String, environment: [String: String] = [:]) throws {
            errPath = dir + "/serve.err"
            _ = FileManager.default.createFile(atPath: errPath, contents: nil)
            process.executableURL = URL(fileURLWithPath: TestPaths.gpslogBinary)
            process.arguments = arguments
            var env = ProcessInfo.processInfo.environment.withoutConfigFiles
            env["GPSLOG_DB"] = dir + "/gpslog.sqlite"
            env.merge(environment) { $1 }
            process.environment = env
            process.standardOutput = output
            process.standardError = FileHandle(forWritingAtPath: errPath)
            process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
            try process.run()
        }

        var stderr: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }

        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    @Test func aWrongPasswordIsNamedOnceAndAskedAgainWithBackoff() throws {
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir, user: "gpslog", password: "right-horse-battery")
            let serve = try Serve(
                [
                    "serve", "--listen", "127.0.0.1:0", "--mqtt", "mqtt://127.0.0.1:\(broker.port)",
                    "--mqtt-username", "gpslog", "--verbose",
                ], dir: dir, environment: ["GPSLOG_MQTT_PASSWORD": "staple-wrong-9f3a"])
            // Four attempts: at 0, 1, 3 and 7 s (it was one a second, each logged as an error).
            #expect(
                waitUntil(timeout: 60) { Self.lines(serve.stderr, containing: "refused the connection").count >= 4 },
                "\(serve.stderr)")
            let seen = Self.lines(serve.stderr, containing: "refused the connection")
            let warnings = seen.filter { $0.contains(" warning ") }
            #expect(warnings.count == 1, "\(seen)")
            #expect(warnings.first?.contains("retrying in 1 s") == true, "\(seen)")
            #expect(seen.dropFirst().allSatisfy { $0.contains(" debug ") }, "\(seen)")
            #expect(seen.prefix(4).map { $0.contains("retrying in 2 s") } == [false, true, false, false], "\(seen)")
            let attempts = broker.logText.components(separatedBy: "New connection from").count - 1
            #expect(attempts <= seen.count + 1, "\(attempts) connections for \(seen.count) refusals")
            #expect(!serve.stderr.contains("staple-wrong"))
        }
    }

    @Test func aServerThatSpeaksNoMQTTIsLoggedAndBackedOffFrom() throws {
        try withTemporaryDirectory { dir in
            let server = try GarbageServer()
            defer { server.stop() }
            let serve = try Serve(
                ["serve", "--listen", "127.0.0.1:0", "--mqtt", "mqtt://127.0.0.1:\(server.port)", "--verbose"],
                dir: dir)
            #expect(
                waitUntil(timeout: 60) { Self.lines(serve.stderr, containing: "before accepting it").count >= 3 },
                "\(serve.stderr)")
            let seen = Self.lines(serve.stderr, containing: "before accepting it")
            #expect(seen.filter { $0.contains(" warning ") }.count == 1, "\(seen)")
            #expect(server.connections <= seen.count + 1)
        }
    }

    /// A 100 MB message (peaked serve at 353 MB): serve announces MQTT v5's Maximum Packet Size, so the broker never
    /// sends it; a location after it is stored.
    @Test func aHundredMegabyteMessageNeverReachesServesMemory() throws {
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let db = dir + "/gpslog.sqlite"
            let rss = dir + "/serve.rss"
            // Under GNU time, which forks serve and reports its own peak (`%M`, KiB) when it ends.
            let time = Process()
            time.executableURL = URL(fileURLWithPath: "/usr/bin/time")
            time.arguments = [
                "-f", "%M", "-o", rss, TestPaths.gpslogBinary, "serve", "--listen", "127.0.0.1:0", "--mqtt",
                "mqtt://127.0.0.1:\(broker.port)",
            ]
            var env = ProcessInfo.processInfo.environment.withoutConfigFiles
            env["GPSLOG_DB"] = db
            time.environment = env
            let errPath = dir + "/serve.err"
            _ = FileManager.default.createFile(atPath: errPath, contents: nil)
            time.standardError = FileHandle(forWritingAtPath: errPath)
            time.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            try time.runClosingFiles()
            var stderr: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }
            #expect(waitUntil(timeout: 30) { stderr.contains("subscribed to owntracks/#") }, "\(stderr)")

            let big = dir + "/big.json"
            try writeGeneratedFile(
                big, head: #"{"_type":"location","lat":52.1,"lon":5.1,"x":""#, count: 100, tail: #""}"#
            ) {
                _ in String(repeating: "x", count: 1 << 20)
            }
            let pub = try runMosquittoClient(
                "mosquitto_pub",
                ["-p", "\(broker.port)", "-h", "127.0.0.1", "-t", "owntracks/rob/pi", "-q", "1", "-f", big])
            #expect(pub.status == 0, "\(pub.output)")
            let location = #"{"_type":"location","lat":52.1,"lon":5.1,"tst":1714543200,"tid":"pi"}"#
            let small = try runMosquittoClient(
                "mosquitto_pub",
                ["-p", "\(broker.port)", "-h", "127.0.0.1", "-t", "owntracks/rob/pi", "-q", "1", "-m", location])
            #expect(small.status == 0, "\(small.output)")
            #expect(waitUntil(timeout: 30) { ServeMQTTTests.entries(db, session: "rob/pi") == 1 }, "\(stderr)")

            // serve is GNU time's child: stop it, and time writes its peak.
            let children =
                (try? String(
                    contentsOfFile: "/proc/\(time.processIdentifier)/task/\(time.processIdentifier)/children",
                    encoding: .utf8)) ?? ""
            let pid = try #require(children.split(separator: " ").first.flatMap { Int32($0) })
            kill(pid, SIGTERM)
            time.waitUntilExit()
            let kib = try #require(
                (try? String(contentsOfFile: rss, encoding: .utf8))?.split(separator: "\n").last.flatMap {
                    Int($0.trimmingCharacters(in: .whitespaces))
                })
            // Well under the message itself: it was never read into serve.
            #expect(kib < 80 << 10, "serve peaked at \(kib >> 10) MB")
        }
    }
}
