// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import NIOCore
import NIOHTTP1

/// A real HTTP server on 127.0.0.1 (a random port) that speaks Nominatim's `/reverse?format=jsonv2` or Photon's
/// `/reverse` exactly, and enforces a public server's limits: 403 "Access blocked" without a User-Agent, 429 (with
/// Retry-After: 0, as the Varnish in front of nominatim.openstreetmap.org sends) to any request less than one second
/// after the previous one. It is the only fake in the suite: the real services are on the internet.
final class FakeGeocoderServer: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `lock`.
    enum Flavor { case nominatim, photon }

    struct Request: Sendable {
        var latitude: Double
        var longitude: Double
        var userAgent: String?
        var status: Int
    }

    let flavor: Flavor
    let minimumSpacing: Double
    private let lock = NSLock()
    private var requests: [Request] = []
    private var lastAccepted: Date?
    private var storm = 0
    private var blocking = false
    private var seaLatitude = -90.0
    private var stormAnswered = 0
    private var late = 0
    private var arrivals = 0
    private var channel: Channel?

    // The settings are read by the server's event loop while a test changes them: each goes through the lock.
    /// Answer 429 to this many requests first (a storm), whatever their spacing.
    var stormRemaining: Int {
        get { lock.withLock { storm } }
        set { lock.withLock { storm = newValue } }
    }
    /// Answer 403 to everything.
    var blockEverything: Bool {
        get { lock.withLock { blocking } }
        set { lock.withLock { blocking = newValue } }
    }
    /// Every second request reaches the server this many milliseconds after it was sent (0: none), as on a loaded
    /// machine or a slow link: the server measures arrivals.
    var lateArrivalMilliseconds: Int {
        get { lock.withLock { late } }
        set { lock.withLock { late = newValue } }
    }
    /// The delay of the request that just came in.
    fileprivate func arrivalDelay() -> Int {
        lock.withLock {
            arrivals += 1
            return arrivals % 2 == 1 ? late : 0
        }
    }
    /// Points south of this latitude are "sea": no address.
    var seaBelowLatitude: Double {
        get { lock.withLock { seaLatitude } }
        set { lock.withLock { seaLatitude = newValue } }
    }

    init(flavor: Flavor, minimumSpacing: Double = 1.0) {
        self.flavor = flavor
        self.minimumSpacing = minimumSpacing
    }

    var port: Int { lock.withLock { channel?.localAddress?.port ?? 0 } }
    var url: String { "http://127.0.0.1:\(port)" }
    var log: [Request] { lock.withLock { requests } }
    /// Requests answered 429 because they came too soon.
    var tooSoon: Int { lock.withLock { requests.filter { $0.status == 429 }.count - stormAnswered } }

    func start() async throws {
        let started = try await startLoopbackHTTPServer { Handler(server: self) }
        lock.withLock { channel = started }
    }

    func stop() async { try? await lock.withLock { channel }?.close() }

    /// Decides the answer for one request: (status, headers, body).
    func answer(uri: String, userAgent: String?) -> (Int, [(String, String)], String) {
        let query = URLComponents(string: uri)?.queryItems ?? []
        let lat = query.first { $0.name == "lat" }?.value.flatMap(Double.init) ?? .nan
        let lon = query.first { $0.name == "lon" }?.value.flatMap(Double.init) ?? .nan
        return lock.withLock {
            func record(_ status: Int) {
                requests.append(Request(latitude: lat, longitude: lon, userAgent: userAgent, status: status))
            }
            if blocking || userAgent == nil || userAgent!.isEmpty {
                record(403)
                return (403, [("Content-Type", "text/html")], "<html><body><h1>Access blocked</h1></body></html>")
            }
            let now = Date()
            if storm > 0 {
                storm -= 1
                stormAnswered += 1
                record(429)
                return (429, [("Retry-After", "0")], "Error 429 Too many requests")
            }
            if let last = lastAccepted, now.timeIntervalSince(last) < minimumSpacing {
                record(429)
                return (429, [("Retry-After", "0")], "Error 429 Too many requests")
            }
            lastAccepted = now
            record(200)
            guard lat.isFinite, lon.isFinite else {
                return (400, [], #"{"error":{"code":400,"message":"Parameter 'lat' must be a number."}}"#)
            }
            let sea = lat < seaLatitude
            let label = String(format: "Testweg %d, %.3f %.3f", Int(abs(lat * 1000)) % 97, lat, lon)
            switch flavor {
            case .nominatim:
                if sea { return (200, [("Content-Type", "application/json")], #"{"error":"Unable to geocode"}"#) }
                return (
                    200, [("Content-Type", "application/json")],
                    #"{"place_id":134140761,"licence":"Data © OpenStreetMap contributors, ODbL 1.0.","osm_type":"way","osm_id":280940520,"lat":"\#(lat)","lon":"\#(lon)","place_rank":26,"category":"highway","type":"residential","importance":0.1,"addresstype":"road","name":"Testweg","display_name":"\#(label), Lelystad, Flevoland, Nederland","address":{"road":"Testweg","town":"Lelystad","state":"Flevoland","country":"Nederland","country_code":"nl"},"boundingbox":["52.0","53.0","5.0","6.0"]}"#
                )
            case .photon:
                if sea {
                    return (200, [("Content-Type", "application/json")], #"{"type":"FeatureCollection","features":[]}"#)
                }
                return (
                    200, [("Content-Type", "application/json")],
                    #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"osm_type":"W","osm_id":26943484,"osm_key":"highway","osm_value":"residential","type":"street","name":"\#(label)","street":"Testweg","housenumber":"7","postcode":"8221 AB","city":"Lelystad","state":"Flevoland","country":"Nederland","countrycode":"NL"},"geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]}}]}"#
                )
            }
        }
    }

    final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let server: FakeGeocoderServer
        var head: HTTPRequestHead?
        init(server: FakeGeocoderServer) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let h): head = h
            case .body: break
            case .end:
                guard let head else { return }
                let delay = server.arrivalDelay()
                guard delay == 0 else {
                    let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                    context.eventLoop.scheduleTask(in: .milliseconds(Int64(delay))) {
                        bound.value.0.respond(to: head, context: bound.value.1)
                    }
                    return
                }
                respond(to: head, context: context)
            }
        }

        func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
            let (status, headers, body) = server.answer(
                uri: head.uri, userAgent: head.headers.first(name: "User-Agent"))
            var h = HTTPHeaders(headers)
            h.add(name: "Content-Length", value: String(body.utf8.count))
            context.write(
                wrapOutboundOut(
                    .head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: status), headers: h))),
                promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
