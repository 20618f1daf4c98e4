// SPDX-License-Identifier: MIT
import Foundation
import GPSLogMQTT
import GPSLogTestSupport
import Testing

/// The reconnect schedule, computed on instants the test gives (no real seconds).
@Suite(.ownThreads)
struct ReconnectBackoffTests {
    @Test func theWaitDoublesFromOneSecondToThirtyAndStartsAgainAfterAConnection() {
        var backoff = ReconnectBackoff(first: .seconds(1), maximum: .seconds(30))
        let delays = (0..<8).map { _ in backoff.failed() }
        #expect(delays == [1, 2, 4, 8, 16, 30, 30, 30].map { Duration.seconds($0) })
        backoff.connected()
        let start = ContinuousClock.now
        #expect(backoff.nextAttempt(after: start) == start + .seconds(1))
        #expect(backoff.nextAttempt(after: start + .seconds(3600)) == start + .seconds(3602))
    }

    @Test func aFailureSaysItsWaitAndItsKind() {
        var failure = ConnectionFailure(kind: .refused, reason: "Connection Refused: not authorised.")
        failure.retryIn = .seconds(4)
        #expect(failure.retryText == "4 s")
        #expect(failure.summary == "refused the connection: Connection Refused: not authorised.")
    }
}

/// Failures as the network thread reports them, with the monotonic time each came.
final class Failures: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var items: [(failure: ConnectionFailure, time: ContinuousClock.Instant)] = []
    func add(_ f: ConnectionFailure) { lock.withLock { items.append((f, .now)) } }
    var list: [(failure: ConnectionFailure, time: ContinuousClock.Instant)] { lock.withLock { items } }
}

/// Reconnecting against a real Mosquitto that refuses the session, and a server that speaks no MQTT: every kind of
/// failure backs off (1 s doubling), and is said once, then as a repeat.
@Suite(
    .ownThreads,
    .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto and mosquitto-clients (make test installs them)"))
struct ReconnectTests {
    @Test func aWrongPasswordIsAskedAgainWithBackoffAndSaidOnce() throws {
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir, user: "pi", password: "right-horse-battery")
            let client = try MQTTClient(clientID: "gpslog-backoff")
            try client.setCredentials(username: "pi", password: "staple-wrong-9f3a")
            try client.setReconnectDelay(1, maximum: 30)
            let seen = Failures()
            client.onFailure = { seen.add($0) }
            try client.connectInBackground(host: "127.0.0.1", port: broker.port)
            #expect(waitUntil(timeout: 60) { seen.list.count >= 4 }, "\(broker.logText)")
            client.disconnect()
            let list = seen.list
            try #require(list.count >= 4)
            #expect(list.allSatisfy { $0.failure.kind == .refused && $0.failure.reason.contains("not authori") })
            // Said once, then as a repeat (gpslog logs those at debug level).
            #expect(list.prefix(4).map(\.failure.isRepeat) == [false, true, true, true])
            #expect(list.prefix(4).map(\.failure.retryIn) == [1, 2, 4, 8].map { Duration.seconds($0) })
            // 1 + 2 + 4 s between the first four attempts: a loaded machine only makes it longer (it was 3 s when
            // a refused session was retried every second).
            #expect(list[3].time - list[0].time > .milliseconds(6_500))
            // The broker saw no more attempts than were reported (one more may be under way).
            let attempts = broker.logText.components(separatedBy: "New connection from").count - 1
            #expect(attempts <= list.count + 1, "\(attempts) connections for \(list.count) failures")
            #expect(!list.contains { $0.failure.reason.contains("staple") })
        }
    }

    @Test func aServerThatSpeaksNoMQTTIsReportedAndBackedOffFrom() throws {
        let server = try GarbageServer()
        defer { server.stop() }
        let client = try MQTTClient(clientID: "gpslog-garbage")
        let seen = Failures()
        client.onFailure = { seen.add($0) }
        try client.connectInBackground(host: "127.0.0.1", port: server.port)
        #expect(waitUntil(timeout: 60) { seen.list.count >= 3 })
        client.disconnect()
        let list = seen.list
        try #require(list.count >= 3)
        #expect(list.allSatisfy { $0.failure.kind == .broken }, "\(list.map(\.failure))")
        #expect(list.prefix(3).map(\.failure.isRepeat) == [false, true, true])
        #expect(list[2].time - list[0].time > .milliseconds(2_500))
        #expect(server.connections <= list.count + 1)
    }

    /// `upload`'s connect: a server that answers no MQTT is an error at once, not a wait for the timeout.
    @Test func aBlockingConnectToAServerThatSpeaksNoMQTTFailsAtOnce() throws {
        let server = try GarbageServer()
        defer { server.stop() }
        let client = try MQTTClient(clientID: nil)
        let start = ContinuousClock.now
        do {
            try client.connect(host: "127.0.0.1", port: server.port, timeout: 60)
            Issue.record("connected to a server that speaks no MQTT")
        } catch let error as MQTTError {
            if case .failed = error {} else { Issue.record("not a failed connection: \(error)") }
            #expect(error.localizedDescription.contains("ended the connection"), "\(error.localizedDescription)")
        }
        #expect(ContinuousClock.now - start < .seconds(30))
    }
}
