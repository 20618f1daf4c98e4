// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogStore
import GPSLogSystem
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// `gpslog serve`: an HTTP receiver for phones running Overland or OwnTracks (HTTP mode), and for `gpslog upload`.
///
/// Every POST (any path: point the app at `http://host:port/` or `/overland`, `/owntracks`, `/pub`) is read as an
/// Overland batch (`{"locations":[...]}`) or an OwnTracks message (`{"_type":...}`), checked whole, and stored in
/// one transaction in the session of its device (a new session per Overland trip; OwnTracks' transitions there too,
/// its waypoints, cards and last wills in the device's records). The answer, `{"result":"ok"}`
/// for Overland and `[]` for OwnTracks, is sent only after the transaction commits; a bad payload gets a 4xx with
/// a JSON error and changes nothing. A location the device's session already holds (same time and place) is
/// not stored twice, so a client that resends a batch it did not see confirmed does no harm.
public struct Receiver: Sendable {
    /// The SQLite file given to `init`, which `openStore` opens unless it is replaced.
    public var databasePath: String
    /// Required as `Authorization: Bearer TOKEN`, `?access_token=TOKEN`, or as the Basic password (OwnTracks).
    public var token: AccessToken?
    /// The SQLite file whose users and devices (`gpslog device add`) `DeviceAuthority` checks tokens against; nil:
    /// none (`--store postgres://` without a local database).
    public var accountsDatabase: String?
    /// Where refused posts and failures are logged (warnings and errors), and each stored payload (debug).
    public var logger: Logger
    /// Deadlines and connection caps (see `ConnectionLimits`).
    public var limits = ConnectionLimits()
    /// An MQTT broker to subscribe to beside HTTP (`serve --mqtt`); nil: HTTP only.
    public var mqtt: MQTTSubscription?
    /// More routes on the same port (the web view's GETs and `/login`). Every POST goes to the receiver, whatever
    /// its path, except to the paths in `routedPosts`: a router does not fall back from `/api/sessions/...` to a
    /// catch-all, so the receiver is not one of its routes.
    public var routes: (@Sendable (Router<ReceiverContext>) -> Void)?
    /// The exact paths whose POSTs go to `routes` (the view's `/login`).
    public var routedPosts: Set<String> = []
    /// Opens the database the receiver writes into: the SQLite file at `databasePath` unless set (`serve --store`).
    public var openStore: @Sendable () throws -> any ReceiverBackend

    /// A receiver that writes into the SQLite file at `databasePath`, with the default limits, over HTTP only.
    public init(databasePath: String, token: AccessToken?, logger: Logger) {
        self.databasePath = databasePath
        self.token = token
        self.logger = logger
        accountsDatabase = databasePath
        openStore = { try Store(path: databasePath) }
    }

    /// Serves until cancelled (SIGINT/SIGTERM). `onListening` gets the bound port (useful with port 0).
    public func run(host: String, port: Int, onListening: @escaping @Sendable (Int) async -> Void) async throws {
        let sink = ReceiverStore(store: try openStore())
        let authority = try DeviceAuthority(databasePath: accountsDatabase, adminToken: token, logger: logger)
        let budget = BodyBudget(limit: 32 << 20)
        mapLargeAllocationsSeparately()
        let router = Router(context: ReceiverContext.self)
        routes?(router)
        let routed = router.buildResponder()
        let (logger, routedPosts) = (logger, routedPosts)
        // A POST to any path but the routed ones: apps differ in what they append.
        let responder = CallbackResponder<ReceiverContext> { request, context in
            // Traccar's osmand protocol (a location in the URL or a form) and Dawarich's reads, on any path.
            if OsmAndReceiver.takes(request, routedPosts: routedPosts) {
                return await OsmAndReceiver.handle(
                    request, context: context, sink: sink, authority: authority, logger: logger)
            }
            if DawarichRoutes.takes(request) {
                return await DawarichRoutes.handle(
                    request, context: context, sink: sink, authority: authority, logger: logger)
            }
            guard request.method == .post, !routedPosts.contains(request.uri.path) else {
                do {
                    return try await routed.respond(to: request, context: context)
                } catch let error as any HTTPResponseError {
                    throw error
                } catch {
                    // Hummingbird answers 500 to any other error and says nothing: serve's log says what failed.
                    logger.error(
                        "\(request.method) \(request.uri.path.visiblePath) failed: \(describeForPeople(error).visible)")
                    throw error
                }
            }
            return await Receiver.handle(
                request, context: context, sink: sink, budget: budget, authority: authority, logger: logger)
        }
        let registry = ConnectionRegistry(limits: limits)
        let app = Application(
            responder: responder,
            server: .http1(configuration: .init(additionalChannelHandlers: [ConnectionGuard(registry: registry)])),
            configuration: .init(address: .hostname(host, port: port), serverName: "gpslog"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) }, logger: logger)
        let feed = try mqtt.map {
            try MQTTFeed(subscription: $0, sink: sink, authority: authority, logger: logger)
        }
        do {
            try await app.runService()
        } catch {
            await feed?.stop()
            await sink.close()
            await authority.close()
            throw error
        }
        await feed?.stop()
        await sink.close()
        await authority.close()
    }

    static func handle(
        _ request: Request, context: ReceiverContext, sink: ReceiverStore, budget: BodyBudget,
        authority: DeviceAuthority, logger: Logger
    ) async -> Response {
        let client = context.remoteAddress?.ipAddress ?? "unknown"
        let credentials = Credentials(request)
        let identification = await authority.identify(tokens: credentials.tokens)
        if let reason = BrowserGuard.crossSiteRefusal(request, tokenRequired: identification != .known(.anyone)) {
            logger.warning("refused a POST to \(request.uri.path.visiblePath) from \(client.visible): \(reason)")
            return json(.forbidden, errorJSON("refused: \(reason); phones and scripts post without a web page"))
        }
        guard case .known(let identity) = identification else {
            let reason = if case .refused(let why) = identification { why } else { "" }
            logger.warning("refused a POST to \(request.uri.path.visiblePath) from \(client.visible): \(reason)")
            return json(
                .unauthorized, #"{"error":"missing or wrong token: send Authorization: Bearer TOKEN"}"#,
                extra: [(.wwwAuthenticate, #"Bearer realm="gpslog", Basic realm="gpslog""#)])
        }
        guard BrowserGuard.declaresJSON(request) else {
            let given = request.headers[.contentType].map { "Content-Type \($0.visible)" } ?? "no Content-Type"
            logger.warning("refused a POST to \(request.uri.path.visiblePath) from \(client.visible): \(given)")
            return json(
                .unsupportedMediaType,
                errorJSON("the body must be sent as Content-Type: application/json (\(given) was given)"))
        }
        // The body's share of the budget: what it says it is, at most the largest body taken.
        let declared = request.headers[.contentLength].flatMap { Int($0) }.map { max(0, $0) } ?? context.maxUploadSize
        let reserved = min(declared, context.maxUploadSize)
        await budget.acquire(reserved)
        let response = await handleBody(
            request, context: context, credentials: credentials, identity: identity, sink: sink, logger: logger)
        await budget.release(reserved)
        return response
    }

    /// Reads, checks and stores one authorised request's body.
    static func handleBody(
        _ request: Request, context: ReceiverContext, credentials: Credentials, identity: Identity,
        sink: ReceiverStore, logger: Logger
    ) async -> Response {
        // A payload that names another device than its token's is refused whole, and said in the log.
        let refuse = { (reason: String) -> Response in
            let client = context.remoteAddress?.ipAddress ?? "unknown"
            logger.warning(
                "refused a POST to \(request.uri.path.visiblePath) from \(client.visible): \(reason.visible)")
            return json(.forbidden, errorJSON("refused: \(reason)"))
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: context.maxUploadSize)
        } catch {
            return json(.contentTooLarge, #"{"error":"the body is larger than 16 MiB: send smaller batches"}"#)
        }
        let payload: ReceivedPayload
        let data = Data(buffer: body)
        do {
            payload = try ReceivedPayload(data, source: "request")
        } catch ImportError.malformed(_, _, let reason) {
            return json(.badRequest, errorJSON("the body is \(reason)"))
        } catch {
            return json(.unprocessableContent, errorJSON(describeForPeople(error)))
        }
        do {
            switch payload {
            case .overland(let body):
                let batch = try OverlandPayload(body: body, source: "request")
                let claims = Set(batch.entries.compactMap(\.deviceID) + batch.visits.compactMap { $0.deviceID })
                    .sorted()
                    .map { DeviceClaim($0, source: "Overland device_id") }
                let decision = DeviceAuthority.authorize(identity, claims: claims)
                if case .refused(let reason) = decision { return refuse(reason) }
                let dawarich = request.uri.path == "/api/v1/points"
                let stored = try await sink.storeOverland(batch, as: decision.device, namingRows: dawarich)
                var extra = batch.visits.isEmpty ? "" : ", \(counted(batch.visits.count, "visit record"))"
                if batch.skippedRecords > 0 { extra += ", \(counted(batch.skippedRecords, "other record")) skipped" }
                logger.debug(
                    "stored \(stored.stored) of \(counted(batch.entries.count, "Overland location")) in '\(stored.session)' (\(stored.duplicates) already there)\(extra)"
                )
                // Dawarich's own path answers in Dawarich's shape; any other, Overland's.
                if dawarich { return json(.ok, DawarichRoutes.created(batch.entries, rows: stored.rows)) }
                return json(.ok, #"{"result":"ok"}"#)
            case .ownTracks(let message):
                let decision = DeviceAuthority.authorize(
                    identity, claims: credentials.ownTracksClaims(topic: message.topic))
                if case .refused(let reason) = decision { return refuse(reason) }
                let device = decision.device ?? credentials.ownTracksDevice(topic: message.topic, tid: message.tid)
                let received = try OwnTracksMessage.received(message, data: data, source: "request")
                if let words = try await sink.storeOwnTracks(received, device: device) {
                    logger.debug("\(words)")
                } else if case .other(let type) = received {
                    logger.debug("skipped an OwnTracks \(type.visible) message: not stored")
                }
                return json(.ok, "[]")
            case .neither:
                if let answer = await OsmAndReceiver.handleTraccarJSON(
                    data, identity: identity, sink: sink, logger: logger)
                {
                    return answer
                }
                return json(
                    .badRequest,
                    errorJSON(
                        "neither an Overland batch ({\"locations\":[...]}) nor an OwnTracks message ({\"_type\":...})"))
            }
        } catch let error as ImportError {
            return json(.unprocessableContent, errorJSON(describeForPeople(error)))
        } catch {
            logger.error("cannot store a payload: \(describeForPeople(error).visible)")
            return json(
                .serviceUnavailable,
                errorJSON("cannot store it now (\(describeForPeople(error))); send it again later"))
        }
    }

    static func errorJSON(_ message: String) -> String {
        let data =
            (try? JSONSerialization.data(withJSONObject: ["error": message], options: [.withoutEscapingSlashes]))
            ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static func json(_ status: HTTPResponse.Status, _ text: String, extra: [(HTTPField.Name, String)] = []) -> Response
    {
        var headers: HTTPFields = [.contentType: "application/json"]
        for (name, value) in extra { headers[name] = value }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// The request context: a larger body limit than Hummingbird's 2 MiB (an Overland backlog of a day, batched by
/// 200, is far below 16 MiB, but a phone configured with large batches can send more).
public struct ReceiverContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's own storage for the request.
    public var coreContext: CoreRequestContextStorage
    /// The client's address (its connection's), for log lines and per-address limits.
    public let remoteAddress: SocketAddress?
    /// Takes the client's address from the connection.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
    /// The largest body taken: 16 MiB.
    public var maxUploadSize: Int { 16 << 20 }
}

/// What a request says about who sends it.
struct Credentials {
    var bearer: String?
    var basicUser: String?
    var basicPassword: String?
    var queryToken: String?
    var limitUser: String?
    var limitDevice: String?

    init(_ request: Request) {
        let auth = request.headers[.authorization] ?? ""
        if auth.lowercased().hasPrefix("bearer ") {
            bearer = String(auth.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        if auth.lowercased().hasPrefix("basic "),
            let data = Data(base64Encoded: String(auth.dropFirst(6)).trimmingCharacters(in: .whitespaces))
        {
            let pair = String(decoding: data, as: UTF8.self)
            if let colon = pair.firstIndex(of: ":") {
                basicUser = String(pair[..<colon])
                basicPassword = String(pair[pair.index(after: colon)...])
            }
        }
        let query = request.uri.queryParameters
        queryToken = query.get("access_token") ?? query.get("token") ?? query.get("api_key")
        limitUser = HTTPField.Name("X-Limit-U").flatMap { request.headers[$0] }
        limitDevice = HTTPField.Name("X-Limit-D").flatMap { request.headers[$0] }
    }

    /// The tokens the request carries, for `DeviceAuthority.identify`.
    var tokens: [String] { [bearer, queryToken, basicPassword].compactMap { $0 } }

    /// What an OwnTracks request says of its device: X-Limit-U/D, the topic in the message, the Basic user.
    func ownTracksClaims(topic: String?) -> [DeviceClaim] {
        var claims: [DeviceClaim] = []
        if let u = limitUser, !u.isEmpty {
            claims.append(
                DeviceClaim(user: u, device: limitDevice.flatMap { $0.isEmpty ? nil : $0 }, source: "X-Limit-U/D"))
        }
        if let topic, topic.hasPrefix("owntracks/"), let device = OwnTracksTopic.device(topic) {
            claims.append(DeviceClaim(device, source: "the message's topic"))
        }
        if let user = basicUser, !user.isEmpty {
            claims.append(DeviceClaim(user, source: "the Basic user", asUser: true))
        }
        return claims
    }

    /// `user/device` for an OwnTracks sender: X-Limit-U and X-Limit-D (the HTTP mode's headers), else the
    /// message's topic (`owntracks/user/device`, or a topic below it such as `/event`), else the Basic user and the tracker id.
    func ownTracksDevice(topic: String?, tid: String?) -> String {
        if let u = limitUser, !u.isEmpty { return u + "/" + (limitDevice ?? tid ?? "phone") }
        if let topic, topic.hasPrefix("owntracks/"), let device = OwnTracksTopic.device(topic) { return device }
        return (basicUser ?? "owntracks") + "/" + (tid ?? "phone")
    }
}

extension Decision {
    /// The device to store as; nil: as the payload names it.
    var device: String? { if case .asDevice(let device) = self { device } else { nil } }
}
