// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogStore

/// Publishes what a broker has not confirmed of a session, as the OwnTracks apps publish it: each location (track
/// points and marks, a POI mark with `poi`) retained on `owntracks/USER/DEVICE`, each region entered or left on
/// `.../event`, in time order; with Home Assistant's discovery, each location's attributes as well. The database is
/// the queue, as for `Uploader`: the session's cursor for this broker moves only once the broker confirmed a whole
/// batch (PUBACK at QoS 1), so a broker away for a day, a re-run or a kill -9 loses nothing and sends at most the one
/// unconfirmed batch again.
///
/// Messages go paced: at most `rate` a second, and at most `window` awaiting the broker's PUBACK. A PUBACK says the
/// broker took a message, not that a subscriber stored it: a broker queues at most `max_queued_messages` (Mosquitto:
/// 1000) for a slow subscriber and drops the rest, so a backlog published at full speed is lost there.
public final class MQTTPublisher {
    /// How much goes at once and how fast.
    public struct Options: Sendable {
        /// Locations per batch: the cursor moves once the broker confirmed a whole batch (one commit per batch
        /// spares the SD card).
        public var batchSize = 200
        /// Seconds to wait for the broker's next confirmation.
        public var timeout = 30.0
        /// Messages a second at most (nil: unpaced): what the slowest subscriber stores (the OwnTracks Recorder
        /// about 20 a second).
        public var rate: Double? = 20
        /// Messages awaiting the broker's PUBACK at most (Mosquitto's `max_inflight_messages` is 20).
        public var window = 20
        /// The defaults: 200 per batch, 30 s, 20 messages a second, 20 in flight.
        public init() {}
    }

    let store: Store
    let link: MQTTLink
    let options: Options

    /// A publisher of `store`'s sessions over `link`; publishes nothing until asked.
    public init(store: Store, link: MQTTLink, options: Options) {
        self.store = store
        self.link = link
        self.options = options
    }

    /// Locations of the session that the broker has not confirmed.
    public func queued(session: Session) throws -> Int {
        let progress = try store.uploadProgress(session: session.id, destination: link.destination.progressKey)
        return try store.countTrackPoints(of: session.id, after: progress.last, marks: true)
    }

    /// Publishes what waits of `session`; `report.records` counts the transitions.
    /// - Parameters:
    ///   - session: the session to publish.
    ///   - progress: called with (locations confirmed in this run, locations to send in this run).
    ///   - isolation: the actor the run stays on between messages; the caller's by default.
    /// - Returns: what this run published and what still waits.
    /// - Throws: `MQTTSendError.notConnected` (nothing is published while away), `.notConfirmed`.
    public func publish(
        session: Session, progress: ((Int, Int) -> Void)? = nil, isolation: isolated (any Actor)? = #isolation
    ) async throws -> UploadReport {
        let d = link.destination
        var state = try store.uploadProgress(session: session.id, destination: d.progressKey)
        var report = UploadReport(destination: d.displayURL)
        report.alreadySent = state.sent
        report.lastSentAt = state.sentAt?.iso8601()
        let confirmed = try store.sentRecords(session: session.id, destination: d.progressKey)
        var transitions = try store.transitions(of: session.id).filter { !confirmed.contains(Self.recordID($0)) }[...]
        var remaining = try store.countTrackPoints(of: session.id, after: state.last, marks: true)
        let total = remaining
        report.queued = remaining
        guard remaining > 0 || !transitions.isEmpty else { return report }
        progress?(0, total)
        let writer = OwnTracksWriter(trackerID: d.trackerID)
        var pacer = Pacer(rate: options.rate)
        while remaining > 0 || !transitions.isEmpty {
            guard link.isConnected else {
                throw MQTTSendError.notConnected(broker: d.displayURL, reason: link.lastFailure)
            }
            var batch: [Entry] = []
            try store.trackPoints(of: session.id, after: state.last, limit: options.batchSize, marks: true).forEach {
                batch.append($0)
            }
            // The transitions up to the batch's last location, each before the location that made it.
            let due = batch.last.map { last in transitions.prefix { $0.time <= last.time } } ?? transitions
            var pending = due[...]
            var mids: [Int32] = []
            var count = 0
            /// One message, once the pace and the in-flight window allow it.
            func send(_ payload: [UInt8], topic: String, retain: Bool) async throws {
                await pacer.wait()
                guard await link.settle(&mids, toAtMost: max(1, options.window) - 1, timeout: options.timeout) else {
                    throw notSent(count: mids.count)
                }
                mids.append(try link.publish(topic: topic, payload: payload, retain: retain))
                count += 1
            }
            func publishTransitions(until time: Timestamp?) async throws {
                while let t = pending.first, time.map({ t.time <= $0 }) ?? true {
                    var b: [UInt8] = []
                    writer.appendTransition(t, to: &b)
                    try await send(b, topic: d.baseTopic + "/event", retain: false)
                    pending.removeFirst()
                }
            }
            for e in batch {
                try await publishTransitions(until: e.time)
                var b: [UInt8] = []
                writer.appendMessage(e, to: &b)
                // Retained, as the apps publish locations: a consumer that subscribes later sees where it is now.
                try await send(b, topic: d.baseTopic, retain: true)
                if d.homeAssistant != nil {
                    try await send(
                        HomeAssistantDiscovery.attributesMessage(e), topic: HomeAssistantDiscovery.attributesTopic(d),
                        retain: true)
                }
            }
            try await publishTransitions(until: nil)
            guard await link.settle(&mids, toAtMost: 0, timeout: options.timeout) else { throw notSent(count: count) }
            if let last = batch.last {
                state.last = (last.time.milliseconds, last.key ?? 0)
                state.sent += batch.count
            }
            state.batches += 1
            state.sentAt = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
            try store.saveUploadProgress(
                state, records: due.map(Self.recordID), session: session.id, destination: d.progressKey)
            transitions.removeFirst(due.count)
            report.sent += batch.count
            report.records += due.count
            report.batches += 1
            report.lastSentAt = state.sentAt?.iso8601()
            remaining = try store.countTrackPoints(of: session.id, after: state.last, marks: true)
            report.queued = remaining
            progress?(report.sent, max(total, report.sent + remaining))
        }
        return report
    }

    /// Publishes the regions as the apps do when one is made (`_type: waypoint` on `.../waypoint`), and waits for
    /// the broker's confirmations.
    public func publishWaypoints(_ regions: [Region], isolation: isolated (any Actor)? = #isolation) async throws {
        let d = link.destination
        guard link.isConnected else { throw MQTTSendError.notConnected(broker: d.displayURL, reason: link.lastFailure) }
        let writer = OwnTracksWriter(trackerID: d.trackerID)
        let mids = try regions.map {
            try link.publish(topic: d.baseTopic + "/waypoint", payload: writer.waypointMessage($0), retain: false)
        }
        guard await link.confirmed(mids, timeout: options.timeout) else {
            throw MQTTSendError.notConfirmed(broker: d.displayURL, count: mids.count, seconds: options.timeout)
        }
    }

    /// The waypoints an upload publishes: `regions` (gpslog's, as `record --send` publishes them), then the regions
    /// the sessions' transitions went through that are not among them (removed since, or imported with a file's
    /// waypoints) when their centre and radius are known; once each, by rid, else by creation.
    public static func waypoints(regions: [Region], sessions: [Session], store: Store) throws -> [Region] {
        var all = regions
        var seen = Set(regions.map { $0.regionID.isEmpty ? "tst:\($0.created.milliseconds)" : $0.regionID })
        for session in sessions {
            for t in try store.transitions(of: session.id) where t.regionIsKnown && t.region.radius > 0 {
                let key = t.region.regionID.isEmpty ? "tst:\(t.region.created.milliseconds)" : t.region.regionID
                if seen.insert(key).inserted { all.append(t.region) }
            }
        }
        return all
    }

    /// Why a batch did not go: the connection lost, or no confirmation in time.
    private func notSent(count: Int) -> MQTTSendError {
        let d = link.destination
        guard link.isConnected else { return .notConnected(broker: d.displayURL, reason: link.lastFailure) }
        return .notConfirmed(broker: d.displayURL, count: count, seconds: options.timeout)
    }

    /// How a transition is kept in `SentRecords` once the broker confirmed it.
    static func recordID(_ t: Transition) -> String { "transition:\(t.key ?? 0)" }
}

@available(*, unavailable)
extension MQTTPublisher: Sendable {}

/// At most `rate` messages a second, on the monotonic clock; no burst to make up for time lost waiting.
struct Pacer {
    let interval: Duration?
    private var next = ContinuousClock.now

    init(rate: Double?) {
        interval = rate.flatMap { $0 > 0 ? .nanoseconds(Int64(1e9 / $0)) : nil }
    }

    /// Waits until the next message may go.
    mutating func wait() async {
        guard let interval else { return }
        let now = ContinuousClock.now
        if next > now { try? await Task.sleep(until: next, clock: .continuous) }
        next = max(next, now) + interval
    }
}
