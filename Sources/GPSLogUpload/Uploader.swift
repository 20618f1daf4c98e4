// SPDX-License-Identifier: MIT
import AsyncHTTPClient
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogStore
import GPSLogSystem
import NIOCore
import NIOHTTP1

/// What an upload run did.
public struct UploadReport: Sendable, Codable, Equatable {
    /// The destination, without credentials.
    public var destination: String
    /// Track points confirmed in this run.
    public var sent = 0
    /// Batches (POSTs) confirmed in this run.
    public var batches = 0
    /// POSTs that failed and were tried again.
    public var retries = 0
    /// Track points confirmed by earlier runs (skipped).
    public var alreadySent = 0
    /// Track points still waiting.
    public var queued = 0
    /// When the last batch was confirmed (ISO 8601), in this run or before.
    public var lastSentAt: String?
    /// Records (pause, resume, visits) confirmed in this run.
    public var records = 0
    /// Track points passed over in this run by `--logging-mode latest` or `owntracks` (only the newest goes).
    public var skipped = 0
    /// What the server asked for in `set` (Overland's remote configuration) in this run, the last value of each key.
    public var settings: [ServerSetting] = []

    /// An empty report for `destination`, as it may be shown (no credentials).
    public init(destination: String) { self.destination = destination }
}

/// Sends a session's track points to a destination in batches, as Overland does, and moves the session's cursor
/// for that destination only after the server confirmed a batch: the database is the queue, so a re-run, a run
/// after kill -9, or a recording that was offline for a day resumes after the last confirmed batch, losing nothing
/// and sending at most the one unconfirmed batch again.
public final class Uploader {
    /// Batching, retries and timeouts.
    public struct Options: Sendable {
        /// Track points per POST to an Overland endpoint; OwnTracks takes one per POST.
        public var batchSize = 200
        /// Count any 2xx as confirmed, not only `{"result":"ok"}`.
        public var accept2xx = false
        /// Attempts per batch before giving up (the progress so far is kept).
        public var maxAttempts = 10
        /// Seconds before the first retry; doubles up to `maxRetryDelay`, with up to 25 % jitter.
        public var firstRetryDelay = 0.5
        /// Seconds at most between retries.
        public var maxRetryDelay = 60.0
        /// Seconds to wait for an answer.
        public var timeout = 30.0
        /// The `User-Agent` header of every request.
        public var userAgent = "gpslog/0.1.0"
        /// Overland's logging mode: every point in batches, or only the newest at each send.
        public var loggingMode = LoggingMode.all
        /// End the run after a batch whose answer carried `set`, so that the caller applies the settings before
        /// the next batch (live sending); otherwise go on and report them at the end.
        public var stopAtSettings = false
        /// The defaults: 200 per batch, 10 attempts, retries from 0.5 s up to 60 s, 30 s to answer.
        public init() {}
    }

    let store: any UploadSource
    /// Where the points go.
    public let destination: Destination
    let options: Options
    let client: SendingClient

    /// An uploader of `store`'s sessions to `destination` through `client`; sends nothing until asked.
    public init(store: any UploadSource, destination: Destination, options: Options, client: SendingClient) {
        self.store = store
        self.destination = destination
        self.options = options
        self.client = client
    }

    /// Track points of the session that the destination has not confirmed.
    public func queued(session: Session) throws -> Int {
        try store.countTrackPoints(
            of: session.id, after: store.uploadProgress(session: session.id, destination: destination.progressKey).last,
            marks: false)
    }

    /// Sends what the destination has not confirmed of `session`: its track points and, to an Overland
    /// destination in logging mode `all`, its records (pause, resume, visits) not yet confirmed, mixed in by time;
    /// records alone go when no point waits.
    /// - Parameters:
    ///   - session: the session to send.
    ///   - progress: called with (points confirmed in this run, points to send in this run).
    ///   - isolation: the actor the run stays on between requests; the caller's by default.
    /// - Returns: what this run sent and what still waits, with the settings the server asked for.
    /// - Throws: `UploadError.rejected` on a 4xx other than 429, `UploadError.gaveUp` after `maxAttempts`;
    ///   `StoreError` when the progress cannot be read or saved. What was confirmed before stays confirmed.
    public func upload(
        session: Session, progress: ((Int, Int) -> Void)? = nil, isolation: isolated (any Actor)? = #isolation
    ) async throws -> UploadReport {
        let key = destination.progressKey
        var state = try store.uploadProgress(session: session.id, destination: key)
        var report = UploadReport(destination: destination.displayURL)
        report.alreadySent = state.sent
        report.lastSentAt = state.sentAt?.iso8601()
        var remaining = try store.countTrackPoints(of: session.id, after: state.last, marks: false)
        let total = remaining
        report.queued = remaining
        if options.loggingMode != .all {
            return try await uploadNewest(session: session, state: state, report: report)
        }
        var records = try pendingRecords(of: session)
        guard remaining > 0 || !records.isEmpty else { return report }
        let ends = try store.trackEnds(of: session.id)
        var previous: Entry? = try state.last.flatMap { try store.trackPoint(key: $0.key) }
        // OwnTracks and OsmAnd take one location per request.
        let batchSize = destination.format == .overland ? max(1, options.batchSize) : 1
        var writer = OverlandWriter(batchSize: batchSize, deviceID: destination.deviceID)
        writer.uniqueID = destination.uniqueID
        progress?(0, total)
        while remaining > 0 {
            var batch: [Entry] = []
            try store.trackPoints(of: session.id, after: state.last, limit: batchSize, marks: false).forEach {
                batch.append($0)
            }
            guard let last = batch.last else { break }
            var distance = state.distance
            for e in batch {
                if let p = previous {
                    distance += Geo.distance(lat1: p.latitude, lon1: p.longitude, lat2: e.latitude, lon2: e.longitude)
                }
                previous = e
            }
            // The newest point now: a recording keeps adding them.
            let latest = try store.trackEnds(of: session.id)?.last ?? ends?.last
            let due = records.prefix { $0.time <= last.time }
            let body: [UInt8]
            var headers = HTTPHeaders()
            var url = destination.expandedURL(latest: latest)
            switch destination.format {
            case .overland:
                let batchesLeft = (remaining + batchSize - 1) / batchSize
                body = writer.batchBody(
                    batch, records: Array(due), session: session, start: ends?.first, distance: distance,
                    current: batchesLeft > 2 ? latest : nil)
            case .owntracks:
                body = ownTracksBody(last, headers: &headers)
            case .osmand:
                body = []
                url = osmAndURL(last)
            }
            let (retries, settings) = try await post(body, to: url, headers: headers)
            report.retries += retries
            report.merge(settings)
            state.last = (last.time.milliseconds, last.key ?? 0)
            state.sent += batch.count
            state.batches += 1
            state.distance = distance
            state.sentAt = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
            try store.saveUploadProgress(state, records: due.map(\.id), session: session.id, destination: key)
            records.removeFirst(due.count)
            report.records += due.count
            report.sent += batch.count
            report.batches += 1
            report.lastSentAt = state.sentAt?.iso8601()
            remaining = try store.countTrackPoints(of: session.id, after: state.last, marks: false)
            report.queued = remaining
            progress?(report.sent, max(total, report.sent + remaining))
            if options.stopAtSettings && !settings.isEmpty { return report }
        }
        // Records after the last point (or with no point waiting) go alone, as Overland sends a queue of records.
        while !records.isEmpty {
            let due = records.prefix(max(1, options.batchSize))
            let body = writer.batchBody(
                [], records: Array(due), session: session, start: ends?.first, distance: state.distance)
            let (retries, settings) = try await post(
                body, to: destination.expandedURL(latest: ends?.last), headers: HTTPHeaders())
            report.retries += retries
            report.merge(settings)
            try store.saveUploadProgress(state, records: due.map(\.id), session: session.id, destination: key)
            records.removeFirst(due.count)
            report.records += due.count
            report.batches += 1
            if options.stopAtSettings && !settings.isEmpty { break }
        }
        return report
    }

    /// The records of `session` this destination has not confirmed, in time order; none for OwnTracks, which has
    /// no such messages.
    func pendingRecords(of session: Session) throws -> [OverlandRecord] {
        guard destination.format == .overland else { return [] }
        let sent = try store.sentRecords(session: session.id, destination: destination.progressKey)
        var records = OverlandRecord.records(
            events: try store.trackingEvents(of: session.id), visits: try store.visits(of: session.id))
        // A finished trip (`trip stop`, or the automatic pause): Overland's trip record, after its last point.
        if session.isTrip, let end = session.end, let stopped = session.stoppedAutomatically,
            !sent.contains(OverlandRecord.tripID(session.id)), let ends = try store.trackEnds(of: session.id)
        {
            records.append(
                OverlandRecord.trip(
                    session, end: end, first: ends.first, last: ends.last,
                    distance: try store.trackLength(sessionID: session.id), stoppedAutomatically: stopped))
        }
        return records.filter { !sent.contains($0.id) }
    }

    /// Logging modes `latest` and `owntracks`: one POST with the newest point (Overland's `{"locations":[p]}`, or
    /// one OwnTracks message), then the cursor jumps to it; older unsent points are passed over, not deleted.
    private func uploadNewest(
        session: Session, state: UploadProgress, report: UploadReport, isolation: isolated (any Actor)? = #isolation
    ) async throws -> UploadReport {
        var state = state
        var report = report
        guard report.queued > 0, let ends = try store.trackEnds(of: session.id) else { return report }
        let newest = ends.last
        var headers = HTTPHeaders()
        let body: [UInt8]
        var url = destination.expandedURL(latest: newest)
        if destination.format == .osmand {
            body = []
            url = osmAndURL(newest)
        } else if options.loggingMode == .owntracks {
            body = ownTracksBody(newest, headers: &headers)
        } else {
            var writer = OverlandWriter(batchSize: 1, deviceID: destination.deviceID)
            writer.uniqueID = destination.uniqueID
            body = writer.batchBody(
                [newest], session: session, start: ends.first, distance: state.distance)
        }
        let (retries, settings) = try await post(body, to: url, headers: headers)
        report.retries += retries
        report.merge(settings)
        report.skipped = report.queued - 1
        state.last = (newest.time.milliseconds, newest.key ?? 0)
        state.sent += 1
        state.batches += 1
        state.sentAt = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        try store.saveUploadProgress(state, session: session.id, destination: destination.progressKey)
        report.sent = 1
        report.batches = 1
        report.lastSentAt = state.sentAt?.iso8601()
        report.queued = try store.countTrackPoints(of: session.id, after: state.last, marks: false)
        return report
    }

    /// One OwnTracks location message (with `m` and `t`), and the X-Limit headers for `user/device`.
    private func ownTracksBody(_ e: Entry, headers: inout HTTPHeaders) -> [UInt8] {
        let userDevice = destination.deviceID.flatMap { $0.contains("/") ? $0 : nil }
        let writer = OwnTracksWriter(
            trackerID: String((userDevice?.split(separator: "/").last ?? "gl").suffix(2)), userDevice: userDevice)
        var b: [UInt8] = []
        writer.appendMessage(e, to: &b)
        if let userDevice {
            let parts = userDevice.split(separator: "/", maxSplits: 1)
            headers.add(name: "X-Limit-U", value: String(parts[0]))
            headers.add(name: "X-Limit-D", value: String(parts[1]))
        }
        return b
    }

    /// One OsmAnd request: the destination's URL with the location's query parameters.
    private func osmAndURL(_ e: Entry) -> String {
        OsmAnd.requestURL(
            base: destination.url, entry: e, deviceID: destination.deviceID ?? OsmAnd.defaultDeviceID)
    }

    // MARK: - HTTP

    /// POSTs one body (OsmAnd: GETs the URL, whose query is the location) until the server confirms it, on a kept-alive
    /// connection. Returns the number of retries and the settings the answer carried in `set` (only with
    /// `{"result":"ok"}`).
    /// - Throws: `UploadError.rejected` on a 4xx other than 429; `UploadError.gaveUp` after `maxAttempts`.
    private func post(
        _ body: [UInt8], to url: String, headers extra: HTTPHeaders, isolation: isolated (any Actor)? = #isolation
    ) async throws -> (retries: Int, settings: [ServerSetting]) {
        var delay = options.firstRetryDelay
        var reason = ""
        for attempt in 1...max(1, options.maxAttempts) {
            if attempt > 1 {
                try await Task.sleep(for: .seconds(delay * Double.random(in: 1...1.25)))
                delay = min(delay * 2, options.maxRetryDelay)
            }
            var request = HTTPClientRequest(url: url)
            // OsmAnd as its app sends it: a GET, which every OsmAnd receiver takes.
            request.method = destination.format == .osmand ? .GET : .POST
            if destination.format != .osmand {
                request.headers.add(name: "Content-Type", value: "application/json")
            }
            request.headers.add(name: "User-Agent", value: options.userAgent)
            if let token = destination.token {
                request.headers.add(name: "Authorization", value: "Bearer " + token.secret)
            }
            request.headers.add(contentsOf: extra)
            if destination.format != .osmand { request.body = .bytes(ByteBuffer(bytes: body)) }
            let status: Int
            let answer: ByteBuffer
            let http = client.current
            do {
                let response = try await http.execute(request, timeout: .milliseconds(Int64(options.timeout * 1000)))
                status = Int(response.status.code)
                answer = try await response.body.collect(upTo: 1 << 20)
            } catch {
                reason = scrub("network: " + describeForPeople(error, peer: destination.url, timeout: options.timeout))
                client.renew(after: http)
                continue
            }
            let text = String(buffer: answer)
            switch HTTPAnswer(status: status) {
            case .success:
                if confirms(text) { return (attempt - 1, ServerAnswer.settings(in: text)) }
                reason = "HTTP \(status) without {\"result\":\"ok\"}: " + snippet(text)
            case .rateLimited, .serverError:
                reason = "HTTP \(status)" + (text.isEmpty ? "" : ": " + snippet(text))
            case .forbidden, .refused:
                var message = snippet(text)
                if destination.format == .osmand && status == 400 {
                    // Traccar's answer to a device it does not know, with an empty body.
                    message +=
                        "; a Traccar server says so of a device it does not know: add a device with the identifier "
                        + "'\((destination.deviceID ?? "").visible)' there, or give --device-id"
                }
                throw UploadError.rejected(url: destination.displayURL, status: status, message: message)
            case .unexpected:
                reason = "HTTP \(status)"
            }
        }
        throw UploadError.gaveUp(url: destination.displayURL, attempts: max(1, options.maxAttempts), lastReason: reason)
    }

    /// Overland counts a batch as sent only on `{"result":"ok"}`; OwnTracks and OsmAnd on any 2xx (Traccar answers
    /// an empty 200, or a command for the device).
    private func confirms(_ text: String) -> Bool {
        if options.accept2xx || destination.format != .overland || options.loggingMode == .owntracks { return true }
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            return false
        }
        return object["result"] as? String == "ok"
    }

    /// A server's answer as it may be shown: one line, short, with no secret in it.
    private func snippet(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        let short = line.count > 200 ? String(line.prefix(200)) + "..." : line
        return scrub(short.isEmpty ? "(empty answer)" : short)
    }

    /// Replaces the token and the URL's secrets wherever they appear (a server or a library may echo them).
    private func scrub(_ text: String) -> String {
        var out = text.replacingOccurrences(of: destination.url, with: destination.displayURL)
        if let token = destination.token { out = out.replacingOccurrences(of: token.secret, with: "***") }
        return out
    }
}

@available(*, unavailable)
extension Uploader: Sendable {}
