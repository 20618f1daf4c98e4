// SPDX-License-Identifier: MIT
// The OsmAnd protocol as Traccar reads it: https://www.traccar.org/osmand/ (any HTTP method, query or form
// parameters) and Traccar's decoder, src/main/java/org/traccar/protocol/OsmAndProtocolDecoder.java
// (github.com/traccar/traccar): `id`/`deviceid`, `timestamp` (seconds below Integer.MAX_VALUE, else milliseconds),
// `lat`, `lon`, `speed` read as knots (`convertSpeed(value, "kn")`), `bearing`/`heading`, `altitude`, `accuracy`,
// `hdop`, `batt`; a device it does not know gets 400, a location 200. One location per request.
import Foundation
import GPSLogModel
import GPSLogTestSupport
import GPSLogUpload
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

/// A Traccar OsmAnd port on 127.0.0.1: it reads each request as Traccar's decoder does and answers 200 (400 for a
/// device id it does not know). A location counts as received once its 200 went out, so a server killed between
/// reading a request and answering it does not count it (the client sends it again). It can be killed (every
/// connection dropped) and started again on the same port.
final class TraccarOsmAndServer: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `lock`.
    /// One location as Traccar's decoder reads it.
    struct Location: Sendable, Equatable {
        var device: String
        var time: Int64  // milliseconds
        var latitude: Double
        var longitude: Double
        var speedKnots: Double?
        var course: Double?
        var altitude: Double?
        var accuracy: Double?
        var hdop: Double?
        var battery: Double?
        var method: String
        /// The client's port: one per connection, so kept-alive connections show as few ports.
        var clientPort: Int
    }

    let devices: Set<String>
    private let lock = NSLock()
    private var received: [Location] = []
    private var server: Channel?
    private var children: [Channel] = []
    private(set) var port = 0

    init(devices: Set<String>) { self.devices = devices }

    var locations: [Location] { lock.withLock { received } }

    /// Listens on `port` (0: one the kernel picks; the same one again after `kill`).
    func start() async throws {
        let wanted = port
        server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                self.lock.withLock { self.children.append(channel) }
                return channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(Handler(server: self))
                }
            }
            .bind(host: "127.0.0.1", port: wanted).get()
        port = server?.localAddress?.port ?? 0
    }

    /// Drops the listener and every connection, as a server that crashed.
    func kill() async {
        try? await server?.close()
        for child in lock.withLock({ children }) { try? await child.close() }
        lock.withLock { children.removeAll() }
    }

    /// Traccar's reading of one request: the query's parameters, else the body's (form); nil without a known
    /// device id (Traccar answers 400).
    func decode(_ head: HTTPRequestHead, body: String, clientPort: Int) -> Location? {
        var items = URLComponents(string: head.uri)?.queryItems ?? []
        if items.isEmpty { items = URLComponents(string: "?" + body)?.queryItems ?? [] }
        var l = Location(
            device: "", time: 0, latitude: 0, longitude: 0, method: head.method.rawValue, clientPort: clientPort)
        for item in items {
            guard let value = item.value else { continue }
            switch item.name {
            case "id", "deviceid": l.device = value
            case "timestamp":
                guard let t = Int64(value) else { return nil }
                l.time = t < Int64(Int32.max) ? t * 1000 : t
            case "lat": l.latitude = Double(value) ?? .nan
            case "lon": l.longitude = Double(value) ?? .nan
            case "speed": l.speedKnots = Double(value)
            case "bearing", "heading": l.course = Double(value)
            case "altitude": l.altitude = Double(value)
            case "accuracy": l.accuracy = Double(value)
            case "hdop": l.hdop = Double(value)
            case "batt": l.battery = Double(value)
            default: break
            }
        }
        return devices.contains(l.device) ? l : nil
    }

    func keep(_ location: Location) { lock.withLock { received.append(location) } }

    final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let server: TraccarOsmAndServer
        var head: HTTPRequestHead?
        var body = ByteBuffer()
        init(server: TraccarOsmAndServer) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let h):
                head = h
                body.clear()
            case .body(var chunk): body.writeBuffer(&chunk)
            case .end:
                guard let head else { return }
                let location = server.decode(
                    head, body: String(buffer: body), clientPort: context.remoteAddress?.port ?? 0)
                // Keep-alive, as Traccar answers: no Connection: close.
                let headers = HTTPHeaders([("Content-Length", "0")])
                let status: HTTPResponseStatus = location == nil ? .badRequest : .ok
                context.write(
                    wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                    promise: nil)
                let server = server
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenSuccess {
                    if let location { server.keep(location) }
                }
            }
        }
    }
}

@Suite(.ownThreads) struct OsmAndSendTests {
    /// The knots Traccar reads back to metres a second.
    static let metresPerSecondPerKnot = 1852.0 / 3600

    @Test func aLocationReadsBackAsTraccarReadsIt() async throws {
        let e = Entry(
            id: "x", latitude: 52.3731234, longitude: -4.8923456, altitude: 12.5, horizontalAccuracy: 4.2,
            time: Timestamp(milliseconds: 1_700_000_123_900), speed: 10, course: 271.5, hdop: 0.9,
            batteryLevel: 0.87)
        let url = OsmAnd.requestURL(base: "http://127.0.0.1:5055/?key=a&b", entry: e, deviceID: "rob pi&1")
        let server = TraccarOsmAndServer(devices: ["rob pi&1"])
        let path = String(url.dropFirst("http://127.0.0.1:5055".count))
        let read = try #require(
            server.decode(HTTPRequestHead(version: .http1_1, method: .GET, uri: path), body: "", clientPort: 1))
        #expect(read.device == "rob pi&1")
        #expect(read.time == 1_700_000_123_000, "whole seconds")
        #expect(read.latitude == 52.3731234 && read.longitude == -4.8923456)
        #expect(abs((read.speedKnots ?? 0) * Self.metresPerSecondPerKnot - 10) < 0.01, "knots: \(read)")
        #expect(read.course == 271.5 && read.altitude == 12.5 && read.accuracy == 4.2 && read.hdop == 0.9)
        #expect(read.battery == 87, "percent")
        #expect(path.hasPrefix("/?key=a&b&id="), "\(path)")

        // The scheme: osmand:// is http on 5055, osmands:// https.
        #expect(OsmAnd.httpURL("osmand://traccar.example.org") == "http://traccar.example.org:5055")
        #expect(OsmAnd.httpURL("osmand://t.example.org:8000/x") == "http://t.example.org:8000/x")
        #expect(OsmAnd.httpURL("osmands://t.example.org") == "https://t.example.org")
        let d = try Destination(url: "osmand://127.0.0.1:1/p")
        #expect(d.format == .osmand && d.url == "http://127.0.0.1:1/p" && d.deviceID == OsmAnd.defaultDeviceID)
    }

    @Test func anUnknownDeviceIsRefusedWithWhatToDo() async throws {
        try await withTemporaryDirectory { dir in
            let server = TraccarOsmAndServer(devices: ["known"])
            try await server.start()
            let db = dir + "/gpslog.sqlite"
            let recorded = try await runGPSLogAsync(
                ["record", "--source", "replay:sample?speed=0", "--geocode", "off", "--name", "S"], database: db,
                folder: dir)
            try #require(recorded.status == 0, "\(recorded.stderr)")
            let r = try await runGPSLogAsync(
                ["upload", "S", "--url", "osmand://127.0.0.1:\(server.port)", "--device-id", "stranger\u{1b}[2J"],
                database: db, folder: dir)
            #expect(r.status != 0)
            #expect(r.stderr.contains("HTTP 400"), "\(r.stderr)")
            #expect(r.stderr.contains("add a device with the identifier 'stranger\\u001B[2J'"), "\(r.stderr)")
            #expect(!r.stderr.contains("\u{1b}"), "escaped")
            #expect(server.locations.isEmpty)
            await server.kill()
        }
    }

    /// `record --send osmand://`: the server killed mid-run and started again; every point arrives once, in order,
    /// with Traccar's units, on kept-alive connections.
    @Test(.timeLimit(.minutes(15)))
    func aServerKilledMidRunGetsEveryFixOnce() async throws {
        try await withTemporaryDirectory { dir in
            let server = TraccarOsmAndServer(devices: ["rob-pi"])
            try await server.start()
            let db = dir + "/gpslog.sqlite"
            // An hour's log at speed 1 outlasts the kill and the restart, however busy the machine: `stop` ends it.
            try writeLongNMEALog(dir + "/hour.nmea")
            let recorder = try BackgroundGPSLog(
                [
                    "record", "--source", "replay:\(dir)/hour.nmea?speed=1", "--geocode", "off", "--name", "Traccar",
                    "--commit-every", "1s", "--send", "osmand://127.0.0.1:\(server.port)", "--send-interval", "1s",
                    "--device-id", "rob-pi",
                ], database: db, folder: dir, environment: ["GPSLOG_RETRY_DELAY": "0.05"])
            defer { kill(recorder.process.processIdentifier, SIGKILL) }
            #expect(await waitUntilAsync(timeout: 240) { server.locations.count >= 8 }, "\(recorder.stderr)")
            await server.kill()
            let before = server.locations.count
            // Away: the recorder says why, and the queue grows.
            #expect(
                await waitUntilAsync(timeout: 240) { recorder.stderr.contains("sending: ") }, "\(recorder.stderr)")
            #expect(
                try await waitUntilAsync(timeout: 240) {
                    let s = try await runGPSLogAsync(["status", "--json"], database: db, folder: dir).stdout
                    let json = try? JSONSerialization.jsonObject(with: Data(s.utf8)) as? [String: Any]
                    return (json?["sending"] as? [String: Any])?["queued"] as? Int ?? 0 >= 5
                })
            try await server.start()
            #expect(
                await waitUntilAsync(timeout: 240) { server.locations.count >= before + 15 }, "\(recorder.stderr)")
            let stop = try await runGPSLogAsync(["stop"], database: db, folder: dir)
            #expect(stop.status == 0, "\(stop.stderr)")
            #expect(await recorder.exitStatus(timeout: 120) == 0, "\(recorder.stderr)")
            await server.kill()

            // What was recorded, as OwnTracks messages (tst, lat, lon, vel in km/h, 7 decimals).
            let export = try await runGPSLogAsync(
                ["export", "Traccar", "--format", "owntracks"], database: db, folder: dir)
            let expected = export.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let got = server.locations
            try #require(expected.count > 20, "\(expected.count) points")
            #expect(
                got.map { $0.time / 1000 } == expected.map { Int64($0["tst"] as? Int ?? -1) }, "each once, in order")
            for (l, m) in zip(got, expected) {
                #expect(l.device == "rob-pi" && l.method == "GET")
                #expect(abs(l.latitude - (m["lat"] as? Double ?? 0)) < 1e-7, "\(l) \(m)")
                #expect(abs(l.longitude - (m["lon"] as? Double ?? 0)) < 1e-7, "\(l) \(m)")
                // OwnTracks' vel is km/h, rounded; Traccar's speed knots.
                let kmh = (l.speedKnots ?? 0) * Self.metresPerSecondPerKnot * 3.6
                #expect(abs(kmh - Double(m["vel"] as? Int ?? 0)) <= 0.52, "\(l) \(m)")
            }
            // Kept alive: a connection carries many requests (a new one after the kill, and after an idle spell).
            let connections = Set(got.map(\.clientPort)).count
            #expect(connections * 4 <= got.count, "\(connections) connections for \(got.count) requests")
        }
    }
}
