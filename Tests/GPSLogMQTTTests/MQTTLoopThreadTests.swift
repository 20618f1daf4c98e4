// SPDX-License-Identifier: MIT
import Foundation
import GPSLogMQTT
import GPSLogTestSupport
import Testing

/// The client's one thread against a real Mosquitto on loopback: it sleeps in poll(2) for as long as the keepalive
/// allows, and wakes at once for work handed over from another thread; callbacks run on it; letting the client go
/// joins it and frees what it held; a broker that comes back is reconnected, and waiting tasks learn of the loss.
@Suite(
    .ownThreads,
    .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto and mosquitto-clients (make test installs them)"))
struct MQTTLoopThreadTests {
    /// With a 600 s keepalive the loop's poll waits up to 600 s: a message published from other threads reaches a
    /// subscriber within seconds only if the hand-off wakes it.
    @Test func aPublishFromAnotherThreadWakesTheIdleLoopAtOnce() throws {
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let subscriber = try MQTTSubscriber(broker: broker, filter: "owntracks/#", folder: dir)
            let client = try MQTTClient(clientID: "gpslog-wake")
            try client.connect(host: "127.0.0.1", port: broker.port, keepalive: 600)
            defer { client.disconnect() }
            for n in 1...3 {
                // QoS 0: no PUBACK comes to wake the loop; only the hand-off does.
                let start = ContinuousClock.now
                DispatchQueue.global().async {
                    _ = try? client.publish(topic: "owntracks/rob/pi", payload: Data("{\"n\":\(n)}".utf8), qos: 0)
                }
                #expect(
                    waitUntil(timeout: 20) { subscriber.messages.contains { $0.payload == "{\"n\":\(n)}" } },
                    "\(subscriber.messages.map(\.payload))")
                #expect(ContinuousClock.now - start < .seconds(60), "message \(n) waited for the poll's timeout")
            }
        }
    }

    @Test func callbacksRunOnTheClientsOwnThread() throws {
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let client = try MQTTClient(clientID: "gpslog-threads")
            let seen = Threads()
            client.onConnection = { [weak client] code in
                seen.add("connection")
                // A call from a callback runs there and then (no hand-off to itself, no deadlock).
                if code == 0 { try? client?.subscribe("owntracks/#") }
            }
            client.onSubscribed = { seen.add("subscribed") }
            client.onMessage = { _, _, _ in seen.add("message") }
            try client.connect(host: "127.0.0.1", port: broker.port)
            defer { client.disconnect() }
            #expect(waitUntil(timeout: 20) { seen.names.contains("subscribed") })
            let mid = try client.publish(topic: "owntracks/rob/pi", payload: Data("{}".utf8), qos: 1)
            #expect(client.waitForAcknowledgements([mid], timeout: 20))
            #expect(waitUntil(timeout: 20) { seen.names.contains("message") })
            let list = seen.list
            #expect(Set(list.map(\.name)) == ["connection", "subscribed", "message"])
            #expect(Set(list.map(\.thread)).count == 1, "callbacks on \(Set(list.map(\.thread)).count) threads")
            #expect(list.allSatisfy { $0.thread != pthread_self() })
            #expect(list.allSatisfy { $0.threadName == "gpslog-mqtt" }, "\(list.map(\.threadName))")
        }
    }

    /// Half the clients disconnect, half are only let go (deinit): each must join its thread and close its pipe, its
    /// socket and libmosquitto's own. Other tests run alongside and open descriptors too: a leak of one a cycle
    /// would be 50.
    @Test func closingJoinsTheThreadAndLeaksNoDescriptor() throws {
        try withTemporaryDirectory { dir in
            let broker = try MosquittoBroker(folder: dir)
            let (fds, threads) = (Self.count("/proc/self/fd"), Self.count("/proc/self/task"))
            for cycle in 0..<50 {
                let client = try MQTTClient(clientID: "gpslog-cycle-\(cycle)")
                try client.connect(host: "127.0.0.1", port: broker.port)
                let mid = try client.publish(topic: "owntracks/rob/pi", payload: Data("{}".utf8), qos: 1)
                #expect(client.waitForAcknowledgements([mid], timeout: 20))
                if cycle.isMultiple(of: 2) {
                    client.disconnect()
                    #expect(!client.isConnected)
                }
            }
            #expect(
                waitUntil(timeout: 30) { Self.count("/proc/self/fd") < fds + 25 },
                "\(fds) descriptors before, \(Self.count("/proc/self/fd")) after")
            #expect(
                waitUntil(timeout: 30) { Self.count("/proc/self/task") < threads + 25 },
                "\(threads) threads before, \(Self.count("/proc/self/task")) after")
            // Every one said DISCONNECT: the deinit too (no last will for a client merely let go).
            #expect(
                waitUntil(timeout: 20) {
                    broker.logText.components(separatedBy: "\n").filter {
                        $0.contains("Client gpslog-cycle-") && $0.hasSuffix(" disconnected.")
                    }.count == 50
                }, "\(broker.logText.suffix(2000))")
        }
    }

    /// The broker killed mid-stream and started again on its port: the client reconnects by itself; a task waiting
    /// for a PUBACK learns of the loss at once instead of waiting out its timeout, and one waiting for the
    /// connection is woken when it is back.
    @Test func aBrokerKilledAndStartedAgainIsReconnected() async throws {
        try await withTemporaryDirectory { dir in try await Self.killAndRestart(dir) }
    }

    static func killAndRestart(_ dir: String) async throws {
        var broker = try MosquittoBroker(folder: dir)
        let port = broker.port
        let client = try MQTTClient(clientID: "gpslog-comeback")
        try client.setReconnectDelay(1, maximum: 2)
        let events = Threads()
        client.onConnection = { code in events.add(code == nil ? "lost" : code == 0 ? "connected" : "refused") }
        try client.connectInBackground(host: "127.0.0.1", port: port, keepalive: 600)
        defer { client.disconnect() }
        #expect(await client.waitUntilConnected(timeout: .seconds(30)))
        let first = try client.publish(topic: "owntracks/rob/pi", payload: Data("{\"n\":1}".utf8), qos: 1)
        #expect(await client.acknowledgements(of: [first], atLeast: 1, timeout: .seconds(30)) == [first])

        // A wait for a PUBACK that never comes (an id never published), under way when the broker dies. It runs on
        // the tests' own threads and reads the clock itself, so the time measured is the wait's, not a busy
        // machine's delay in resuming this test.
        let start = ContinuousClock.now
        let waiting = Task(executorPreference: TestThreadPool.shared) {
            let acknowledged = await client.acknowledgements(of: [4242], atLeast: 1, timeout: .seconds(600))
            return (acknowledged, ContinuousClock.now - start)
        }
        broker.kill()
        let (acknowledged, waited) = await waiting.value
        #expect(acknowledged.isEmpty)
        #expect(waited < .seconds(120), "the wait did not end at the loss")
        #expect(!client.isConnected)

        broker = try MosquittoBroker(folder: dir, port: port)
        let subscriber = try MQTTSubscriber(broker: broker, filter: "owntracks/#", folder: dir)
        #expect(await client.waitUntilConnected(timeout: .seconds(60)), "\(broker.logText)")
        // The callback runs just after the waiters are woken (on the client's thread): waited for, not assumed.
        #expect(
            waitUntil(timeout: 20) { events.names.filter { $0 == "connected" }.count == 2 }, "\(events.names)")
        #expect(events.names.contains("lost"))
        let third = try client.publish(topic: "owntracks/rob/pi", payload: Data("{\"n\":3}".utf8), qos: 1)
        #expect(await client.acknowledgements(of: [third], atLeast: 1, timeout: .seconds(30)) == [third])
        #expect(waitUntil(timeout: 20) { subscriber.messages.contains { $0.payload == "{\"n\":3}" } })
    }

    /// A task's deadline wakes the loop (its poll would otherwise wait for the 600 s keepalive), and a cancelled task
    /// is let go at once.
    @Test func aWaitingTaskEndsAtItsDeadlineOrWhenCancelled() async throws {
        try await withTemporaryDirectory { dir in try await Self.deadlineAndCancel(dir) }
    }

    static func deadlineAndCancel(_ dir: String) async throws {
        let broker = try MosquittoBroker(folder: dir)
        let client = try MQTTClient(clientID: "gpslog-deadline")
        // An hour's keepalive: the loop's poll would sleep that long. A wait that ends in much less than an hour
        // ended at its own deadline (or its cancellation), not at the poll's timeout. The bound is loose on purpose:
        // in a full run the other suites can keep this task from resuming for minutes.
        try client.connect(host: "127.0.0.1", port: broker.port, keepalive: 3600)
        defer { client.disconnect() }
        // An id never published: never acknowledged.
        var start = ContinuousClock.now
        #expect(await client.acknowledgements(of: [4242], atLeast: 1, timeout: .seconds(1)).isEmpty)
        let waited = ContinuousClock.now - start
        #expect(waited >= .seconds(1) && waited < .seconds(1800), "\(waited)")

        start = ContinuousClock.now
        let task = Task { await client.acknowledgements(of: [4242], atLeast: 1, timeout: .seconds(3600)) }
        task.cancel()
        #expect(await task.value.isEmpty)
        #expect(ContinuousClock.now - start < .seconds(1800))
    }

    /// Entries in a /proc folder (descriptors, threads).
    static func count(_ folder: String) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: folder).count) ?? -1
    }
}

/// What ran on which thread, gathered from the callbacks.
final class Threads: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var items: [(name: String, thread: pthread_t, threadName: String)] = []
    func add(_ name: String) {
        let entry = (name, pthread_self(), Thread.current.name ?? "")
        lock.withLock { items.append(entry) }
    }
    var list: [(name: String, thread: pthread_t, threadName: String)] { lock.withLock { items } }
    var names: [String] { list.map(\.name) }
}
