// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport

/// The state the soak's threads share: the schedule's random numbers, the database, the serve port of the moment,
/// the running writers, what was acknowledged, the full-disk windows, the findings and the figures. Thread-safe.
final class SoakRun: @unchecked Sendable {
    let folder: String
    /// Where the children's output goes (kept when something went wrong with them).
    let logs: String
    let database: String
    /// The small tmpfs the database lives on, when the full-disk phase can run.
    let disk: String?
    let seed: UInt64
    let started = Date()
    /// When the load stops (the drain follows).
    let end: Date
    let brokerPort: Int

    private let lock = NSLock()
    private var random: UInt64
    private var serial = 0
    private var port: Int?
    private var writers: [String: SoakChild] = [:]
    private var live: [ObjectIdentifier: SoakChild] = [:]
    private var fullDisk: [(start: Date, end: Date?)] = []
    private var found: [String] = []
    private var counts: [String: Int] = [:]
    private var peaks: [String: Int] = [:]
    private var acked: Set<String> = []
    private var published: [String: (from: Date, to: Date)] = [:]
    private var serveDown: [(start: Date, end: Date?)] = []
    private var drainingServe = false
    private var seen: [String: Int] = [:]

    init(folder: String, database: String, disk: String?, seed: UInt64, seconds: Double, brokerPort: Int) throws {
        self.folder = folder
        logs = folder + "/logs"
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        self.database = database
        self.disk = disk
        self.seed = seed
        random = seed
        end = started.addingTimeInterval(seconds)
        self.brokerPort = brokerPort
    }

    // MARK: - The seeded schedule

    /// The next number of the seeded generator (SplitMix64): the same seed gives the same sequence of choices.
    func next() -> UInt64 {
        lock.withLock {
            random &+= 0x9E37_79B9_7F4A_7C15
            var z = random
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + Double(next() >> 11) / Double(1 << 53) * (range.upperBound - range.lowerBound)
    }

    func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[Int(next() % UInt64(items.count))] }

    // MARK: - Time

    var loadRunning: Bool { Date() < end }
    var elapsed: String { String(format: "%.1f s", Date().timeIntervalSince(started)) }

    // MARK: - serve's port and the writers

    var servePort: Int? {
        get { lock.withLock { port } }
        set { lock.withLock { port = newValue } }
    }

    var serveDraining: Bool {
        get { lock.withLock { drainingServe } }
        set { lock.withLock { drainingServe = newValue } }
    }

    /// The writer of `kind` running now (serve, record, import), for the kills.
    func writer(_ kind: String) -> SoakChild? { lock.withLock { writers[kind] } }
    func setWriter(_ kind: String, _ child: SoakChild?) { lock.withLock { writers[kind] = child } }

    // MARK: - Children

    /// Starts a child (see `SoakChild`), watched for its memory until `finish`.
    func spawn(
        _ kind: String, _ arguments: [String], executable: String? = nil, input: String? = nil
    ) throws -> SoakChild {
        let n = lock.withLock {
            serial += 1
            return serial
        }
        let child = try SoakChild(
            kind: kind, executable: executable, arguments, database: database, folder: logs,
            name: String(format: "%05d-%@", n, kind), input: input)
        lock.withLock { live[ObjectIdentifier(child)] = child }
        return child
    }

    /// Reads the memory of every running child (the sampler's tick).
    func sampleMemory() {
        for child in lock.withLock({ Array(live.values) }) { child.sampleMemory() }
    }

    /// Books an ended child: its peak memory, a signal the soak did not send, crash text in its standard error.
    /// `crashScan`: false for a program that is not ours (a browser's stderr is its own business).
    /// Returns its outcome; its output files are removed unless something was wrong.
    @discardableResult func finish(_ child: SoakChild, crashScan: Bool = true) -> SoakOutcome {
        let outcome = child.outcome
        lock.withLock {
            live[ObjectIdentifier(child)] = nil
            peaks[child.kind] = max(peaks[child.kind] ?? 0, outcome.peakKiB)
        }
        var wrong = false
        if outcome.diedOfForeignSignal {
            finding("\(child.kind) died of \(outcome) (\(child.stderrPath)): \(lastLines(child.stderr))")
            wrong = true
        }
        if crashScan, let crash = child.crashText {
            finding("\(child.kind) wrote crash text (\(child.stderrPath)): \(crash)")
            wrong = true
        }
        if !wrong && !keep(child) {
            for path in [child.stdoutPath, child.stderrPath, child.timePath] {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        return outcome
    }

    private var kept: Set<ObjectIdentifier> = []
    /// Marks a child's output to keep (its failure is reported with the path).
    func keepOutput(_ child: SoakChild) { _ = lock.withLock { kept.insert(ObjectIdentifier(child)) } }
    private func keep(_ child: SoakChild) -> Bool { lock.withLock { kept.contains(ObjectIdentifier(child)) } }

    func lastLines(_ text: String, _ count: Int = 3) -> String {
        text.split(separator: "\n").suffix(count).joined(separator: " | ").prefix(600).description
    }

    // MARK: - The full disk

    func fullDiskStarted() { lock.withLock { fullDisk.append((Date(), nil)) } }
    func fullDiskEnded() { lock.withLock { if !fullDisk.isEmpty { fullDisk[fullDisk.count - 1].end = Date() } } }

    /// True when `date` falls in a full-disk window or within `grace` seconds after one: writers may fail then.
    func diskWasFull(at date: Date = Date(), grace: Double = 5) -> Bool {
        lock.withLock {
            fullDisk.contains { date >= $0.start && date <= ($0.end ?? .distantFuture).addingTimeInterval(grace) }
        }
    }

    var fullDiskSeconds: Double {
        lock.withLock { fullDisk.reduce(0) { $0 + ($1.end ?? Date()).timeIntervalSince($1.start) } }
    }

    // MARK: - Findings, figures and the ledger

    func finding(_ text: String) {
        lock.withLock { found.append("[\(String(format: "%.1f", Date().timeIntervalSince(started))) s] " + text) }
        print("soak: FINDING: \(text)")
    }

    var findings: [String] { lock.withLock { found } }

    /// A finding said once however often it happens (a route answering 500 every round); the times are counted.
    func findingOnce(_ key: String, _ text: String) {
        let first = lock.withLock {
            seen[key, default: 0] += 1
            return seen[key] == 1
        }
        if first { finding(text) }
    }

    /// How often each finding said once happened.
    var repeats: [String: Int] { lock.withLock { seen } }

    func count(_ key: String, _ n: Int = 1) { lock.withLock { counts[key, default: 0] += n } }
    var figures: [String: Int] { lock.withLock { counts } }
    var peakKiB: [String: Int] { lock.withLock { peaks } }

    /// Points acknowledged by a 200, as `SESSION|milliseconds`.
    func acknowledge(_ keys: [String]) { lock.withLock { acked.formUnion(keys) } }
    var acknowledged: Set<String> { lock.withLock { acked } }

    /// MQTT messages the broker took (mosquitto_pub's QoS 1 ended well) between `from` and `to`, as
    /// `SESSION|milliseconds`.
    func published(_ keys: [String], from: Date, to: Date) {
        lock.withLock { for key in keys { published[key] = (from, to) } }
    }
    var publishedKeys: Set<String> { lock.withLock { Set(published.keys) } }

    // MARK: - serve's absences

    /// serve is not there (not started yet, killed, ended) from now until `serveCameUp`.
    func serveWentDown() { lock.withLock { serveDown.append((Date(), nil)) } }
    func serveCameUp() {
        lock.withLock {
            if !serveDown.isEmpty && serveDown[serveDown.count - 1].end == nil {
                serveDown[serveDown.count - 1].end = Date()
            }
        }
    }

    /// Why a published message may be missing: published while the disk was full, or while serve was away (5 s
    /// around it: what its queue held when it was killed, and its subscription after it listens), else nil.
    func mqttExcuse(_ key: String) -> String? {
        guard let (from, to) = lock.withLock({ published[key] }) else { return nil }
        if diskWasFull(at: from) || diskWasFull(at: to) { return "full disk" }
        let away = lock.withLock {
            serveDown.contains {
                from <= ($0.end ?? .distantFuture).addingTimeInterval(5) && to >= $0.start.addingTimeInterval(-5)
            }
        }
        return away ? "serve away" : nil
    }
}
