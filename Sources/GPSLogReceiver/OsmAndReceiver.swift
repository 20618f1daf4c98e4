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

/// The receiver's side of Traccar's "osmand" protocol: Traccar Client, OsmAnd's online tracking and GPSLogger's
/// custom URL send a location as the keys of a URL (`GET` or `POST /?id=...&lat=...&lon=...`) or of a form body, on
/// any path, and Traccar Client 9 as JSON (`handleTraccarJSON`). Each device's locations go to the session of
/// `osmand:DEVICE`; the answer is Traccar's, 200 with an empty body.
///
/// Why such a request needs the token: a web page can make the browser send a GET (an `<img>`) or a form POST to
/// this server without asking first, and an old browser, or an `<img>`, says nothing of the page it comes from
/// (no Origin, no Sec-Fetch-Site). A JSON body keeps pages out on its own (a page cannot send one to another site
/// without a CORS preflight this server never grants); a URL or a form does not, so only the token, which a page
/// does not know, tells a phone from a page. A token-less serve listens on loopback only, where no phone is, and
/// refuses them (`BrowserGuard`'s checks come first either way).
enum OsmAndReceiver {
    /// The largest form body read: a location is a few hundred bytes.
    static let largestForm = 64 << 10

    /// Whether `request` is for this receiver: a GET whose URL carries a location (recognised by its keys, as
    /// Traccar recognises it; a GET without them is the web view's), or a POST whose body is not declared JSON
    /// but as a form, plain text or nothing (GPSLogger sends its body without a type).
    static func takes(_ request: Request, routedPosts: Set<String>) -> Bool {
        switch request.method {
        case .get: return urlLocation(request)
        case .post:
            guard !routedPosts.contains(request.uri.path), !BrowserGuard.declaresJSON(request) else { return false }
            let type = request.headers[.contentType].map {
                ($0.split(separator: ";", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            }
            return type == nil || type == "application/x-www-form-urlencoded" || type == "text/plain"
        default: return false
        }
    }

    /// Whether the URL's query has a device and a position.
    static func urlLocation(_ request: Request) -> Bool {
        guard let query = request.uri.query else { return false }
        // Recognised by the keys alone, so a location with a bad or one too many key gets its 422 here.
        let keys = query.split(separator: "&").map { pair in
            (key: String(pair.prefix { $0 != "=" }), value: "")
        }
        return OsmAndPayload.isLocation(keys)
    }

    /// The name a location's device gets (its session is `osmand:NAME`): the `id`/`deviceid` the app sent, or with a
    /// device token (accounts) that device's `USER/DEVICE`, an `id` naming another device refused
    /// (`DeviceAuthority.authorize`).
    static func deviceName(of location: OsmAndLocation, identity: Identity) -> Result<String, DeviceRefusal> {
        switch DeviceAuthority.authorize(identity, claims: [DeviceClaim(location.device, source: "Traccar id")]) {
        case .asClaimed: .success(location.device)
        case .asDevice(let device): .success(device)
        case .refused(let reason): .failure(DeviceRefusal(reason: reason))
        }
    }

    /// Why a location is refused for its device.
    struct DeviceRefusal: Error {
        var reason: String
    }

    /// Checks, reads and stores one location sent as a URL or a form.
    static func handle(
        _ request: Request, context: ReceiverContext, sink: ReceiverStore, authority: DeviceAuthority, logger: Logger
    ) async -> Response {
        let client = context.remoteAddress?.ipAddress ?? "unknown"
        let what = "a \(request.method) to \(request.uri.path.visiblePath) from \(client.visible)"
        let credentials = Credentials(request)
        let identification = await authority.identify(tokens: credentials.tokens)
        if let reason = BrowserGuard.crossSiteRefusal(request, tokenRequired: identification != .known(.anyone)) {
            logger.warning("refused \(what): \(reason)")
            return Receiver.json(
                .forbidden, Receiver.errorJSON("refused: \(reason); phones and scripts post without a web page"))
        }
        let identity: Identity
        switch identification {
        case .known(.anyone):
            logger.warning("refused \(what): a location in a URL or a form, and serve has no --token")
            return Receiver.json(
                request.method == .get ? .forbidden : .unsupportedMediaType,
                Receiver.errorJSON(
                    "a location in a URL or a form body (Traccar Client, OsmAnd, GPSLogger) is taken only by a serve"
                        + " started with --token (or with device tokens), and must carry it (?token=TOKEN); else send"
                        + " Content-Type: application/json"))
        case .known(let who):
            identity = who
        case .refused(let reason):
            logger.warning("refused \(what): \(reason)")
            return Receiver.json(
                .unauthorized, #"{"error":"missing or wrong token: add ?token=TOKEN to the URL"}"#,
                extra: [(.wwwAuthenticate, #"Bearer realm="gpslog", Basic realm="gpslog""#)])
        }
        let location: OsmAndLocation
        do {
            var keys = try OsmAndPayload.parameters(Substring(request.uri.query ?? ""), source: "request")
            if request.method == .post {
                let body = try await request.body.collect(upTo: largestForm)
                keys += try OsmAndPayload.parameters(Substring(String(buffer: body)), source: "request body")
            }
            guard OsmAndPayload.isLocation(keys) else {
                return Receiver.json(
                    .unprocessableContent,
                    Receiver.errorJSON(
                        "not a location: give id (or deviceid), lat and lon (or location=LAT,LON), as keys of the URL"
                            + " or of a form body, or post JSON"))
            }
            location = try OsmAndPayload.location(
                keys, source: "request", now: Timestamp(seconds: Date().timeIntervalSince1970))
        } catch let error as ImportError {
            return Receiver.json(.unprocessableContent, Receiver.errorJSON(describeForPeople(error)))
        } catch {
            return Receiver.json(
                .contentTooLarge, Receiver.errorJSON("the form body is larger than 64 KiB: send one location"))
        }
        return await store(location, identity: identity, what: what, sink: sink, logger: logger)
    }

    /// Traccar Client 9's JSON body (`{"location":{...},"device_id":...}`), when `data` is one; nil when it is not
    /// (the caller answers that the body is none of the known kinds).
    static func handleTraccarJSON(_ data: Data, identity: Identity, sink: ReceiverStore, logger: Logger) async
        -> Response?
    {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            OsmAndPayload.isTraccarJSON(object)
        else { return nil }
        do {
            let location = try OsmAndPayload.location(json: data, source: "request")
            return await store(location, identity: identity, what: "Traccar Client JSON", sink: sink, logger: logger)
        } catch {
            return Receiver.json(.unprocessableContent, Receiver.errorJSON(describeForPeople(error)))
        }
    }

    /// Stores a checked location in its device's session; Traccar's answer, 200 and no body, once committed.
    static func store(
        _ location: OsmAndLocation, identity: Identity, what: String, sink: ReceiverStore, logger: Logger
    ) async -> Response {
        let device: String
        switch deviceName(of: location, identity: identity) {
        case .success(let name): device = name
        case .failure(let refusal):
            logger.warning("refused \(what): \(refusal.reason.visible)")
            return Receiver.json(.forbidden, Receiver.errorJSON("refused: \(refusal.reason)"))
        }
        guard location.valid else {
            logger.debug("skipped a location of '\(device.visible)' the app marked not valid")
            return Response(status: .ok)
        }
        if !location.leftOut.isEmpty {
            // Names already cut and escaped by the parser.
            logger.warning(
                "stored a location of '\(device.visible)' without \(location.leftOut.joined(separator: ", "))")
        }
        do {
            let stored = try await sink.storeOsmAnd(location.entry, device: device)
            let others =
                location.otherKeys.isEmpty ? "" : ", \(counted(location.otherKeys.count, "attribute")) kept"
            logger.debug(
                "stored \(stored.stored) osmand location in '\(stored.session.visible)'\(stored.stored > 0 ? "" : " (already there)")\(others)"
            )
            return Response(status: .ok)
        } catch {
            logger.error("cannot store a payload: \(describeForPeople(error).visible)")
            return Receiver.json(
                .serviceUnavailable,
                Receiver.errorJSON("cannot store it now (\(describeForPeople(error))); send it again later"))
        }
    }
}
