// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSystem
import Logging
import NIOCore
import NIOPosix

/// Reads fixes from a gpsd daemon over its JSON protocol (`?WATCH={"enable":true,"json":true};`), and reconnects
/// with backoff (`Backoff.daemon`: 0.25 s doubling to 30 s) whenever gpsd goes away or cannot be reached (also at
/// the start: a recorder started before gpsd waits for it), so a recording carries on in the same session.
///
/// A watchdog drops a connection on which gpsd sent nothing for `watchdog` (a hung daemon, a wedged receiver: the
/// socket stays open and silent) and reconnects the same way.
public struct GPSDSource: FixSource {
    /// gpsd's host name or address.
    public let host: String
    /// gpsd's TCP port.
    public let port: Int
    /// How long gpsd may send nothing before the connection is dropped; nil: never.
    public let watchdog: Duration?
    private let stats = StatisticsBox()
    private let logger: Logger

    /// The watchdog `record` uses unless told otherwise (`--watchdog`): gpsd reports at least once a second while
    /// a receiver has a fix, and SKY every few seconds while it has none.
    public static let defaultWatchdog = Duration.seconds(10)

    /// A source for gpsd at `host`:`port`; connects only when `events()` is asked for.
    public init(host: String, port: Int, watchdog: Duration? = GPSDSource.defaultWatchdog, logger: Logger) {
        self.host = host
        self.port = port
        self.watchdog = watchdog
        self.logger = logger
    }

    /// `gpsd://HOST:PORT`.
    public var description: String { "gpsd://\(host):\(port)" }
    /// See `FixSource.statistics`.
    public var statistics: SourceStatistics { stats.snapshot }

    /// Connects to gpsd, asks it to WATCH in JSON and streams its fixes and headings; reconnects until cancelled.
    public func events() -> AsyncThrowingStream<[SourceEvent], Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                var backoff = Backoff.daemon
                var decoder = GPSDDecoder()
                var connection = ConnectionLog()
                while !Task.isCancelled {
                    do {
                        let ending = try await runConnection(
                            decoder: &decoder, connection: &connection, continuation: continuation)
                        if ending.gotData { backoff.reset() }
                        if !Task.isCancelled { log(ending, &connection) }
                    } catch is CancellationError {
                        break
                    } catch {
                        let wait = Backoff.seconds(backoff.next())
                        connection.unreachableInARow += 1
                        let why = describeForPeople(error, peer: "\(host):\(port)")
                        // gpsd not running (yet) is a state, not news every few seconds: say it once.
                        if connection.unreachableInARow == 1 {
                            logger.warning(
                                "cannot reach gpsd at \(host):\(port) (\(why)); retrying, repeats are logged at debug level"
                            )
                        } else {
                            logger.debug(
                                "cannot reach gpsd at \(host):\(port) (\(why)); retrying in \(wait) s (\(connection.unreachableInARow) times in a row)"
                            )
                        }
                        stats.update { $0.startWaiting(for: .daemon) }
                        guard !Task.isCancelled else { break }
                        try? await Task.sleep(for: .seconds(wait))
                        continue
                    }
                    stats.update { $0.startWaiting(for: .daemon) }
                    guard !Task.isCancelled else { break }
                    try? await Task.sleep(for: backoff.next())
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// How a connection ended.
    private struct Ending {
        /// Any report arrived on it.
        var gotData: Bool
        /// The watchdog dropped it (gpsd sent nothing for too long); otherwise gpsd closed it.
        var silent: Bool
    }

    /// What earlier connections did, for status and for not repeating the same warning all night.
    private struct ConnectionLog {
        /// Some connection delivered a report: the next one to deliver is a reconnect.
        var hadData = false
        /// Connections the watchdog dropped in a row.
        var silentInARow = 0
        /// Attempts in a row that found no gpsd listening.
        var unreachableInARow = 0
    }

    private func log(_ ending: Ending, _ connection: inout ConnectionLog) {
        guard ending.silent else {
            connection.silentInARow = 0
            logger.warning("gpsd at \(host):\(port) closed the connection; reconnecting")
            return
        }
        connection.silentInARow += 1
        let limit = watchdog.map { Backoff.seconds($0) } ?? 0
        let message: Logger.Message = "gpsd at \(host):\(port) sent nothing for \(limit) s; reconnecting"
        // A gpsd with no receiver attached stays silent on every connection: say so once, not every few seconds.
        if connection.silentInARow == 1 {
            logger.warning("\(message) (watchdog; repeats are logged at debug level)")
        } else {
            logger.debug("\(message) (\(connection.silentInARow) times in a row)")
        }
    }

    /// One connection: returns when gpsd closes it or the watchdog drops it.
    private func runConnection(
        decoder: inout GPSDDecoder, connection: inout ConnectionLog,
        continuation: AsyncThrowingStream<[SourceEvent], Error>.Continuation
    ) async throws -> Ending {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        logger.info("connected to gpsd at \(host):\(port)")
        connection.unreachableInARow = 0
        var gotData = false
        var reconnected = false
        var decoderCopy = decoder
        defer { decoder = decoderCopy }
        let activity = Watchdog(limit: watchdog, channel: channel.channel)
        defer { activity.cancel() }
        do {
            try await channel.executeThenClose { inbound, outbound in
                try await outbound.write(ByteBuffer(string: "?WATCH={\"enable\":true,\"json\":true};\n"))
                var lines = LineSplitter()
                for try await chunk in inbound {
                    try Task.checkCancellation()
                    activity.touch()
                    if !gotData {
                        // gpsd answered: connected (a TCP connection alone may be a hung daemon's backlog).
                        let reconnect = connection.hadData
                        reconnected = reconnect
                        stats.update { $0.didConnect(reconnect: reconnect) }
                        connection.hadData = true
                        gotData = true
                    }
                    // After a lost connection, what follows is a new stretch of track (a new segment in exports).
                    var batch: [SourceEvent] = reconnected ? [.resumed] : []
                    reconnected = false
                    for line in lines.append(chunk) { batch += decoderCopy.decode(line: line) }
                    if !batch.isEmpty { continuation.yield(batch) }
                    let bad = decoderCopy.badLines
                    let times = decoderCopy.implausibleTimes
                    stats.update {
                        $0.badSentences = bad
                        $0.implausibleTimes = times
                        $0.lastSentence = .now
                    }
                }
            }
        } catch {
            // Closing the channel under the reading loop ends it with an error; that is the watchdog's doing.
            if !activity.fired || error is CancellationError { throw error }
        }
        return Ending(gotData: gotData, silent: activity.fired)
    }
}

/// Splits a byte stream into lines (gpsd ends each report with \r\n; lines can be several KB).
/// Written here rather than taken from swift-nio-extras: fifteen lines do not justify another package.
struct LineSplitter {
    private var partial: [UInt8] = []

    mutating func append(_ chunk: ByteBuffer) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        for byte in chunk.readableBytesView {
            if byte == UInt8(ascii: "\n") {
                if partial.last == UInt8(ascii: "\r") { partial.removeLast() }
                if !partial.isEmpty { lines.append(partial) }
                partial.removeAll(keepingCapacity: true)
            } else if partial.count < 1 << 20 {
                partial.append(byte)
            }
        }
        return lines
    }
}

/// Turns gpsd JSON reports into events: TPV (mode >= 2, with time and position) into fixes, ATT into headings.
/// SKY supplies satellites used and dilutions to the next fix. gpsd may report one epoch in several TPVs; the
/// first complete one is used, so a mark never waits for the epoch to close. Times pass a `TimeConsensus`: gpsd
/// forwards what the receiver says, and one forward-dated report must not make every later one look old.
public struct GPSDDecoder: Sendable {
    /// The time of the last fix delivered.
    private var lastFixTime: Timestamp?
    private var times = TimeConsensus<SourceEvent>()
    private var satellites: Int?
    private var hdop: Double?
    private var vdop: Double?
    private var pdop: Double?
    /// Lines that were not JSON objects.
    public private(set) var badLines = 0

    /// A decoder that has seen no report yet.
    public init() {}

    /// Decodes one line of gpsd JSON; returns the fixes and headings it lets through (often none).
    public mutating func decode(line: [UInt8]) -> [SourceEvent] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
            badLines += 1
            return []
        }
        switch object["class"] as? String {
        case "TPV":
            guard let mode = object["mode"] as? Int, mode >= 2,
                let timeText = object["time"] as? String, let time = Timestamp(iso8601: timeText),
                let lat = Self.double(object["lat"]), let lon = Self.double(object["lon"])
            else { return [] }
            if let last = lastFixTime, time <= last { return [] }
            let fix = Fix(
                time: time, latitude: lat, longitude: lon,
                altitude: Self.double(object["altMSL"]) ?? Self.double(object["alt"]),
                horizontalAccuracy: Self.double(object["eph"]), verticalAccuracy: Self.double(object["epv"]),
                speed: Self.double(object["speed"]), course: Self.double(object["track"]), satellites: satellites,
                hdop: hdop, vdop: vdop, pdop: pdop, fixMode: FixMode(rawValue: mode))
            return admit(.fix(fix), at: time)
        case "ATT":
            guard let heading = Self.double(object["heading"]) else { return [] }
            let time = (object["time"] as? String).flatMap { Timestamp(iso8601: $0) } ?? lastFixTime
            guard let time else { return [] }
            return admit(.heading(HeadingReading(time: time, degrees: heading)), at: time)
        case "SKY":
            if let used = object["uSat"] as? Int {
                satellites = used
            } else if let sats = object["satellites"] as? [[String: Any]] {
                satellites = sats.filter { $0["used"] as? Bool == true }.count
            }
            hdop = Self.double(object["hdop"]) ?? hdop
            vdop = Self.double(object["vdop"]) ?? vdop
            pdop = Self.double(object["pdop"]) ?? pdop
            return []
        default:
            return []
        }
    }

    /// Fixes and headings from `TimeConsensus`, without a second fix for an epoch already delivered (held reports
    /// of one epoch are released together).
    private mutating func admit(_ event: SourceEvent, at time: Timestamp) -> [SourceEvent] {
        var released: [SourceEvent] = []
        times.admit(event, at: time) { released.append($0) }
        var out: [SourceEvent] = []
        for e in released {
            if case .fix(let f) = e {
                if let last = lastFixTime, f.time <= last { continue }
                lastFixTime = f.time
            }
            out.append(e)
        }
        return out
    }

    /// Reports dropped for an implausible time (see `TimeConsensus`).
    public var implausibleTimes: Int { times.dropped }

    static func double(_ value: Any?) -> Double? {
        if let d = value as? Double { return d.isFinite ? d : nil }
        if let i = value as? Int { return Double(i) }
        return nil
    }
}
