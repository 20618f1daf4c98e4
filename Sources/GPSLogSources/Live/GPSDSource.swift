// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import Logging
import NIOCore
import NIOPosix

/// Reads fixes from a gpsd daemon over its JSON protocol (`?WATCH={"enable":true,"json":true};`), and reconnects
/// with backoff (0.25 s doubling to 30 s) whenever gpsd goes away, so a recording carries on in the same session.
public struct GPSDSource: FixSource {
    public let host: String
    public let port: Int
    private let stats = StatisticsBox()
    private let logger: Logger

    public init(host: String, port: Int, logger: Logger) {
        self.host = host
        self.port = port
        self.logger = logger
    }

    public var description: String { "gpsd://\(host):\(port)" }
    public var statistics: SourceStatistics { stats.snapshot }

    public func events() -> AsyncThrowingStream<[SourceEvent], Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                var backoff = 0.25
                var decoder = GPSDDecoder()
                while !Task.isCancelled {
                    do {
                        let gotData = try await runConnection(decoder: &decoder, continuation: continuation)
                        if gotData { backoff = 0.25 }
                        if !Task.isCancelled {
                            logger.warning("gpsd at \(host):\(port) closed the connection; reconnecting")
                        }
                    } catch is CancellationError {
                        break
                    } catch {
                        logger.warning("cannot reach gpsd at \(host):\(port) (\(error)); retrying in \(backoff) s")
                    }
                    stats.update { $0.connected = false }
                    guard !Task.isCancelled else { break }
                    try? await Task.sleep(for: .milliseconds(Int(backoff * 1000)))
                    backoff = min(backoff * 2, 30)
                    stats.update { $0.reconnects += 1 }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// One connection: returns when gpsd closes it; true when any report arrived.
    private func runConnection(
        decoder: inout GPSDDecoder, continuation: AsyncThrowingStream<[SourceEvent], Error>.Continuation
    ) async throws -> Bool {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        stats.update { $0.connected = true }
        logger.info("connected to gpsd at \(host):\(port)")
        var gotData = false
        var decoderCopy = decoder
        defer { decoder = decoderCopy }
        try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: "?WATCH={\"enable\":true,\"json\":true};\n"))
            var lines = LineSplitter()
            for try await chunk in inbound {
                try Task.checkCancellation()
                gotData = true
                var batch: [SourceEvent] = []
                for line in lines.append(chunk) { batch += decoderCopy.decode(line: line) }
                if !batch.isEmpty { continuation.yield(batch) }
                let bad = decoderCopy.badLines
                stats.update { $0.badSentences = bad }
            }
        }
        return gotData
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

    public init() {}

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
