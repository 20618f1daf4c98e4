// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport

// The soak's writers: serve and the recorder, each restarted whenever it ends; the phones posting to serve and
// publishing to the broker; the imports; the kills; the full disk. Each loop is bounded in count and in time.

extension SoakRun {
    /// Waits (polling the clock) until `deadline`.
    func pause(until deadline: Date) {
        while Date() < deadline { usleep(UInt32(max(0.001, min(0.2, deadline.timeIntervalSinceNow)) * 1_000_000)) }
    }

    /// The port in serve's `Listening on http://127.0.0.1:PORT/` line.
    static func listeningPort(_ stdout: String) -> Int? {
        guard let line = stdout.split(separator: "\n").first(where: { $0.hasPrefix("Listening on http://") }),
            let colon = line.dropFirst("Listening on http://".count).lastIndex(of: ":")
        else { return nil }
        return Int(line[line.index(after: colon)...].prefix { $0.isNumber })
    }

    /// Keeps one `serve` (receiver, web view, MQTT subscriber) running until `serveDraining`, then stops it with
    /// SIGTERM, which must end it cleanly.
    func superviseServe() {
        var pace = Date()
        serveWentDown()
        for _ in 0..<2000 where !serveDraining {
            pause(until: pace)
            pace = Date().addingTimeInterval(1)
            let child: SoakChild
            do {
                child = try spawn(
                    "serve",
                    [
                        "serve", "--listen", "127.0.0.1:0", "--tiles", "none", "--mqtt",
                        "mqtt://127.0.0.1:\(brokerPort)",
                    ])
            } catch {
                finding("cannot start serve: \(error)")
                return
            }
            setWriter("serve", child)
            keepOutput(child)  // serve's log explains what the clients saw, should the run fail
            let start = Date()
            _ = waitUntil(timeout: 120) { Self.listeningPort(child.stdout) != nil || !child.isRunning }
            if let port = Self.listeningPort(child.stdout) {
                servePort = port
                serveCameUp()
                count("serve starts")
            } else if child.isRunning {
                finding("serve did not listen within 120 s of its start: \(lastLines(child.stderr))")
                child.kill9()
            }
            while child.isRunning && !serveDraining { usleep(100_000) }
            var stopped = false
            if child.isRunning {
                stopped = true
                child.send(SIGTERM)
                if !child.wait(timeout: 60) {
                    finding("serve did not stop within 60 s of SIGTERM")
                    child.kill9()
                }
            }
            _ = child.wait(timeout: 30)
            servePort = nil
            serveWentDown()
            setWriter("serve", nil)
            let outcome = child.outcome
            if stopped && outcome.status != 0 && !outcome.diedOfForeignSignal {
                keepOutput(child)
                finding("serve ended with \(outcome) after SIGTERM: \(lastLines(child.stderr))")
            } else if !stopped && !outcome.killedBySoak && outcome.signal == nil {
                if diskWasFull(at: start) || diskWasFull() {
                    count("serve exits on the full disk")
                } else {
                    keepOutput(child)
                    finding("serve ended by itself with \(outcome): \(lastLines(child.stderr))")
                }
            }
            finish(child)
        }
    }

    /// Records the bundled replay again and again (a short session each), until the load ends.
    func superviseRecorder() {
        var pace = Date()
        for n in 1...2000 where loadRunning {
            pause(until: pace)
            pace = Date().addingTimeInterval(1)
            let child: SoakChild
            do {
                child = try spawn(
                    "record",
                    ["record", "--name", "soak-rec-\(n)", "--source", "replay:sample?speed=20", "--geocode", "off"])
            } catch {
                finding("cannot start the recorder: \(error)")
                return
            }
            setWriter("record", child)
            let start = Date()
            while child.isRunning && loadRunning { usleep(100_000) }
            if child.isRunning {
                child.send(SIGTERM)
                if !child.wait(timeout: 60) {
                    finding("the recorder did not stop within 60 s of SIGTERM")
                    child.kill9()
                }
            }
            _ = child.wait(timeout: 30)
            setWriter("record", nil)
            let outcome = child.outcome
            if outcome.killedBySoak {
                count("record runs killed")
            } else if outcome.status == 0 {
                count("record runs ended well")
            } else if outcome.signal == nil && (diskWasFull(at: start) || diskWasFull()) {
                count("record runs stopped by the full disk")
            } else if outcome.signal == nil {
                keepOutput(child)
                finding("the recorder ended with \(outcome): \(lastLines(child.stderr))")
            }
            finish(child)
        }
    }

    // MARK: - Phones

    /// `seconds` past the epoch as ISO 8601 (UTC).
    static func iso(_ seconds: Int) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec)
    }

    /// Where phone `index` is at `time` (seconds past the epoch): a metre or two a second from its start.
    static func position(_ index: Int, _ time: Int) -> (lat: Double, lon: Double) {
        let second = Double(time - firstSecond(index))
        return (52.0 + Double(index) * 0.1 + second * 0.00001, 5.0 + second * 0.00001)
    }

    /// The first second of phone `index`'s points: each phone has its own days, all in the past.
    static func firstSecond(_ index: Int) -> Int { 1_748_736_000 + index * 1_000_000 }

    /// An Overland phone: batches of 1 to 20 locations, each posted until it is answered 200 (as the app resends
    /// what was not confirmed), to the paths the README names.
    func postOverland(index: Int) {
        let device = "soak-ov\(index)"
        var second = Self.firstSecond(index)
        var pace = Date()
        for _ in 0..<100_000 where loadRunning {
            pace = max(pace.addingTimeInterval(uniform(0.2...0.5)), Date())
            pause(until: pace)
            let times = Array(second..<second + 1 + Int(next() % 20))
            second += times.count
            let features = times.map { t in
                let p = Self.position(index, t)
                return """
                    {"type":"Feature","geometry":{"type":"Point","coordinates":[\(p.lon),\(p.lat)]},\
                    "properties":{"timestamp":"\(Self.iso(t))","device_id":"\(device)","horizontal_accuracy":5,\
                    "speed":1.5,"altitude":2}}
                    """
            }
            let body = #"{"locations":["# + features.joined(separator: ",") + "]}"
            let path = pick(["/", "/overland", "/api/overland"]) ?? "/"
            deliver("Overland", path: path, body: body, keys: times.map { "\(device)|\($0 * 1000)" })
        }
    }

    /// An OwnTracks phone in HTTP mode: one location a post, with the app's X-Limit-U and X-Limit-D headers.
    func postOwnTracks(index: Int) {
        let user = "soak"
        let device = "http\(index)"
        var second = Self.firstSecond(index)
        var pace = Date()
        for _ in 0..<100_000 where loadRunning {
            pace = max(pace.addingTimeInterval(uniform(0.15...0.4)), Date())
            pause(until: pace)
            second += 1
            let p = Self.position(index, second)
            let body =
                #"{"_type":"location","lat":\#(p.lat),"lon":\#(p.lon),"tst":\#(second),"tid":"h\#(index)","acc":5}"#
            let path = pick(["/pub", "/owntracks", "/"]) ?? "/"
            deliver(
                "OwnTracks", path: path, body: body, headers: [("X-Limit-U", user), ("X-Limit-D", device)],
                keys: ["\(user)/\(device)|\(second * 1000)"])
        }
    }

    /// Posts `body` to serve until it is answered 200 (its points are then acknowledged) or refused with a 4xx
    /// (the payload is valid: a finding), up to 90 s after the load ends. Connections refused or reset while serve
    /// is killed or restarting, and 5xx while the disk is full, are resent.
    func deliver(_ kind: String, path: String, body: String, headers: [(String, String)] = [], keys: [String]) {
        let giveUp = end.addingTimeInterval(90)
        var pace = Date()
        for _ in 0..<5000 where Date() < giveUp {
            pause(until: pace)
            pace = Date().addingTimeInterval(0.25)
            guard let port = servePort else { continue }
            let sent = Date()
            let answer = soakHTTP(
                "POST", port: port, path: path, headers: [("Content-Type", "application/json")] + headers, body: body,
                timeout: 60)
            switch answer {
            case .answered(200, _):
                acknowledge(keys)
                count("\(kind) posts answered 200")
                return
            case .answered(let status, let text):
                count("\(kind) posts answered \(status)")
                if status >= 500 && (diskWasFull(at: sent) || diskWasFull()) { continue }
                findingOnce(
                    "post \(kind) \(path) \(status)",
                    "a valid \(kind) post to \(path) was answered \(status): \(text.prefix(200))")
                if status < 500 { return }
            case .failed:
                count("\(kind) posts without an answer (serve killed or restarting)")
            }
        }
        count("\(kind) batches never acknowledged")
    }

    /// OwnTracks phones in MQTT mode: five locations a second through the broker (mosquitto_pub, QoS 1).
    func publishMQTT() {
        var seconds = [Self.firstSecond(10), Self.firstSecond(11)]
        var pace = Date()
        for round in 0..<100_000 where loadRunning {
            pace = max(pace.addingTimeInterval(1), Date())
            pause(until: pace)
            let phone = round % 2
            let device = "mqtt\(phone)"
            var lines: [String] = []
            var keys: [String] = []
            for _ in 0..<5 {
                seconds[phone] += 1
                let t = seconds[phone]
                let p = Self.position(10 + phone, t)
                lines.append(#"{"_type":"location","lat":\#(p.lat),"lon":\#(p.lon),"tst":\#(t),"tid":"m\#(phone)"}"#)
                keys.append("soak/\(device)|\(t * 1000)")
            }
            let file = folder + "/mqtt-\(round).jsonl"
            do {
                try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
                let from = Date()
                let child = try spawn(
                    "mosquitto_pub",
                    ["-h", "127.0.0.1", "-p", "\(brokerPort)", "-q", "1", "-t", "owntracks/soak/\(device)", "-l"],
                    executable: "/usr/bin/mosquitto_pub", input: file)
                if !child.wait(timeout: 60) { child.kill9() }
                if child.outcome.status == 0 {
                    published(keys, from: from, to: Date())
                } else {
                    count("mosquitto_pub failures")
                }
                finish(child, crashScan: false)
            } catch {
                finding("cannot publish: \(error)")
                return
            }
            try? FileManager.default.removeItem(atPath: file)
        }
    }

    // MARK: - Imports, kills, the full disk

    /// Imports a 2,000-point GPX again and again under a new name, and deletes the import before last but one,
    /// so the database stays small.
    func importAgainAndAgain() {
        var pace = Date()
        for n in 1...10_000 where loadRunning {
            pace = max(pace.addingTimeInterval(1), Date())
            pause(until: pace)
            let file = folder + "/import-\(n).gpx"
            let points = (0..<2000).map { i in
                let t = 1_700_000_000 + n * 10_000 + i
                return #"<trkpt lat="\#(47.0 + Double(i) * 0.0001)" lon="8.0"><time>\#(Self.iso(t))</time></trkpt>"#
            }
            let gpx = """
                <?xml version="1.0" encoding="UTF-8"?>
                <gpx version="1.1" creator="soak" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>x</name><trkseg>
                \(points.joined(separator: "\n"))
                </trkseg></trk></gpx>
                """
            do {
                try gpx.write(toFile: file, atomically: true, encoding: .utf8)
                let child = try spawn("import", ["import", file, "--name", "soak-import-\(n)"])
                setWriter("import", child)
                let start = Date()
                if !child.wait(timeout: 180) {
                    finding("import hung: still running after 180 s")
                    child.kill9()
                    _ = child.wait(timeout: 30)
                }
                setWriter("import", nil)
                judge(child, start: start)
                try? FileManager.default.removeItem(atPath: file)
                if n > 3 {
                    try command(
                        "delete", ["delete", "soak-import-\(n - 3)", "--yes"], excuses: ["no session is named"])
                }
            } catch {
                finding("cannot import: \(error)")
                return
            }
        }
    }

    /// kill -9 of serve, the recorder or an import (whichever the seeded draw names and is running), every 4 to 12
    /// seconds of the load.
    func killAtRandom() {
        var pace = Date().addingTimeInterval(uniform(3...8))
        for _ in 0..<10_000 {
            pause(until: pace)
            guard Date() < end.addingTimeInterval(-3) else { return }
            let first = Int(next() % 3)
            let kinds = ["serve", "record", "import"]
            for i in 0..<3 {
                let kind = kinds[(first + i) % 3]
                if let victim = writer(kind), victim.isRunning, victim.kill9() {
                    count("kills of \(kind)")
                    break
                }
            }
            pace = Date().addingTimeInterval(uniform(4...12))
        }
    }

    /// Fills the database's tmpfs with a file for 10 to 20 seconds (10 to 14 in a short run), then removes it.
    func fillTheDisk(seconds: Double) {
        guard let disk else { return }
        pause(until: started.addingTimeInterval(seconds * uniform(0.3...0.45)))
        guard loadRunning else { return }
        let hold = uniform(10...(seconds >= 300 ? 20 : 14))
        let filler = disk + "/filler"
        fullDiskStarted()
        let fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            finding("cannot create the filler file: errno \(errno)")
            fullDiskEnded()
            return
        }
        var written = 0
        for chunk in [1 << 20, 4096, 512] {
            let bytes = [UInt8](repeating: 0x5A, count: chunk)
            for _ in 0..<200 {
                let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, chunk) }
                if n <= 0 { break }
                written += n
            }
        }
        close(fd)
        print("soak: [\(elapsed)] the disk is full (a \(written >> 20) MiB filler); for \(Int(hold)) s")
        pause(until: Date().addingTimeInterval(hold))
        unlink(filler)
        fullDiskEnded()
        print("soak: [\(elapsed)] the filler is gone")
    }
}
