// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport

/// What the soak finds in the database at the end, read with the sqlite3 shell (not with gpslog's own code), and
/// the figures it prints.
struct SoakReport {
    let run: SoakRun
    let integrity: String
    /// Points answered 200, by `SESSION|milliseconds`.
    let acknowledged: Int
    let lost: Set<String>
    let duplicates: Set<String>
    /// Stored points whose post got no 200 (the answer lost to a kill): stored once all the same.
    let storedUnacknowledged: Int
    let mqttPublished: Int
    let mqttStored: Int
    let mqttMissing: Set<String>
    /// Missing messages by why: `full disk`, `serve away`, `unexplained` (serve up, the disk not full).
    let mqttMissingWhy: [String: Int]
    /// True when serve's MQTT session outlives its restarts (one client id, clean session off), so that the broker
    /// keeps what is published while serve is down: only then are published messages owed.
    let mqttDurable: Bool
    let mqttSessionWords: String
    /// `kind: peak MiB > bound MiB`.
    let overBound: [String]

    init(run: SoakRun, brokerLog: String) throws {
        self.run = run
        integrity = try SoakTests.sqlite(run.database, "PRAGMA integrity_check;")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let rows = try SoakTests.sqlite(
            run.database,
            """
            SELECT s.Name || '|' || e.TimeStamp, count(*) FROM Entries e JOIN Sessions s ON s.ID = e.Session
            WHERE s.Name LIKE 'soak-ov%' OR s.Name LIKE 'soak/%' GROUP BY s.Name, e.TimeStamp;
            """)
        var stored: [String: Int] = [:]
        for line in rows.split(separator: "\n") {
            guard let bar = line.lastIndex(of: "|"), let n = Int(line[line.index(after: bar)...]) else { continue }
            stored[String(line[..<bar])] = n
        }
        let acked = run.acknowledged
        acknowledged = acked.count
        lost = acked.filter { stored[$0] == nil }
        duplicates = Set(stored.filter { $0.value > 1 }.keys)
        let http = stored.keys.filter { !$0.hasPrefix("soak/mqtt") }
        storedUnacknowledged = http.filter { !acked.contains($0) }.count
        let published = run.publishedKeys
        mqttPublished = published.count
        mqttStored = stored.keys.filter { $0.hasPrefix("soak/mqtt") }.count
        mqttMissing = published.filter { stored[$0] == nil }
        mqttMissingWhy = Dictionary(grouping: mqttMissing) { run.mqttExcuse($0) ?? "unexplained" }.mapValues(\.count)
        (mqttDurable, mqttSessionWords) = Self.durability(brokerLog)
        var over: [String] = []
        for (kind, kib) in run.peakKiB {
            if let bound = SoakTests.memoryBounds[kind], kib > bound << 10 {
                over.append("\(kind): \(kib >> 10) MiB > \(bound) MiB")
            }
        }
        overBound = over
    }

    /// Whether the subscriber (serve) kept one MQTT session across its restarts, from Mosquitto's log: the client
    /// ids that subscribed, and the clean-session flag (`c1`/`c0`) of each of their connections.
    static func durability(_ log: String) -> (Bool, String) {
        let lines = log.split(separator: "\n")
        var subscribers = Set<String>()
        for line in lines {
            if let r = line.range(of: "Received SUBSCRIBE from ") {
                subscribers.insert(String(line[r.upperBound...].prefix { !$0.isWhitespace }))
            }
        }
        var clean = 0
        var kept = 0
        for line in lines where line.contains("New client connected") {
            guard let r = line.range(of: " as "),
                subscribers.contains(String(line[r.upperBound...].prefix { $0 != " " }))
            else { continue }
            if line.contains(", c1") { clean += 1 } else if line.contains(", c0") { kept += 1 }
        }
        let durable = subscribers.count == 1 && clean == 0 && kept > 0
        let words =
            durable
            ? "serve keeps one MQTT session (client id and clean session off): every published message is owed"
            : "serve's MQTT session does not outlive a restart (\(subscribers.count) client ids, \(clean) clean "
                + "sessions): what is published while it is down is not kept by the broker, so MQTT is counted apart"
        return (durable, words)
    }

    func print() {
        let f = run.figures
        func say(_ text: String) { Swift.print("soak: " + text) }
        say("---- figures (seed \(run.seed), \(Int(run.end.timeIntervalSince(run.started))) s of load) ----")
        say(
            "HTTP points acknowledged (200): \(acknowledged); stored: \(acknowledged - lost.count); lost: \(lost.count); "
                + "duplicates: \(duplicates.count); stored without a 200 (answer lost to a kill): \(storedUnacknowledged)"
        )
        say(
            "MQTT messages published (QoS 1, taken by the broker): \(mqttPublished); stored: \(mqttStored); "
                + "missing: \(mqttMissing.count) ("
                + mqttMissingWhy.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                + "). \(mqttSessionWords)")
        let kills = ["serve", "record", "import"].map { "\($0) \(f["kills of \($0)"] ?? 0)" }
        let total = ["serve", "record", "import"].reduce(0) { $0 + (f["kills of \($1)"] ?? 0) }
        say(
            "kills survived: \(total) (\(kills.joined(separator: ", "))); serve started \(f["serve starts"] ?? 0) times"
        )
        say(
            run.disk == nil
                ? "full disk: SKIPPED (needs root and mount -t tmpfs)"
                : String(format: "full disk: %.1f s", run.fullDiskSeconds))
        let peaks = run.peakKiB.filter { $0.key != "mosquitto_pub" && $0.key != "chromium" }.sorted { $0.key < $1.key }
        say(
            "peak memory (MiB, VmHWM / wait4): " + peaks.map { "\($0.key) \($0.value >> 10)" }.joined(separator: ", ")
                + "; bounds: "
                + SoakTests.memoryBounds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                .joined(separator: ", "))
        say("integrity_check: \(integrity.prefix(200))")
        for (key, value) in f.sorted(by: { $0.key < $1.key }) { say("  \(key): \(value)") }
        let findings = run.findings
        say("findings: \(findings.count)")
        for finding in findings { say("  " + finding) }
        for (key, times) in run.repeats.sorted(by: { $0.key < $1.key }) where times > 1 {
            say("  (\(key): \(times) times)")
        }
        if !lost.isEmpty { say("lost, first ones: \(lost.sorted().prefix(8).joined(separator: ", "))") }
    }
}
