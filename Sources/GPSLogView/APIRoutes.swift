// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import HTTPTypes
import Hummingbird
import NIOCore

/// The JSON API under `/api/` that the pages use (and scripts may): sessions, one session, its track as GeoJSON
/// (exactly `gpslog export --format geojson`, `?tolerance=METRES` as `--simplify`), its track points in a time
/// window for the charts, its marks, and its picture as `gpslog plot` draws it.
struct APIRoutes {
    let logins: Logins
    /// The whole-session answers (track, chart, plot) of long sessions, while the database is unchanged.
    let cache: ViewCache

    /// `/api/sessions` and the routes of one session (`registerSessionRoutes`).
    func register<Context: RequestContext>(on router: Router<Context>) {
        let logins = logins
        router.get("/api/sessions") { request, _ in
            guard let data = try await logins.data(for: request) else { return Self.unauthorized }
            return try Self.json(try await data.sessions())
        }
        registerSessionRoutes(on: router, prefix: "")
    }

    /// The routes of one session under `prefix` (`""`, or a share link's `/s/:share`, whose token then decides who
    /// sees what): each reads through the `ViewData` of the request's viewer, so another's session is a 404.
    func registerSessionRoutes<Context: RequestContext>(on router: Router<Context>, prefix: String) {
        let (logins, cache) = (logins, cache)
        /// The request's view of the data; nil: not allowed.
        let gate = { @Sendable (request: Request, context: Context) async throws -> ViewData? in
            try await logins.data(for: request, share: prefix.isEmpty ? nil : try context.parameters.require("share"))
        }
        router.get(RouterPath(prefix + "/api/sessions/:id")) { request, context in
            guard let data = try await gate(request, context) else { return Self.unauthorized }
            guard let s = try await data.session(try context.parameters.require("id")) else { return Self.notFound }
            return try Self.json(s)
        }
        router.get(RouterPath(prefix + "/api/sessions/:id/track.geojson")) { request, context in
            guard let data = try await gate(request, context) else { return Self.unauthorized }
            var tolerance: Double?
            if let t = request.uri.queryParameters["tolerance"] {
                guard let value = Double(String(t)), value > 0, value.isFinite, value <= 100_000 else {
                    return Self.bad("tolerance must be a number of metres from 0 to 100000")
                }
                tolerance = value
            }
            let id = try context.parameters.require("id")
            guard
                let bytes = try await cache.answer(
                    for: data.viewer, "track|\(id)|\(tolerance ?? 0)",
                    { try await data.geoJSON(id, tolerance: tolerance) })
            else { return Self.notFound }
            return Response(
                status: .ok, headers: [.contentType: "application/geo+json"],
                body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        router.get(RouterPath(prefix + "/api/sessions/:id/entries")) { request, context in
            guard let data = try await gate(request, context) else { return Self.unauthorized }
            let q = request.uri.queryParameters
            let from = q["from"].map { Timestamp(iso8601: $0) }
            let to = q["to"].map { Timestamp(iso8601: $0) }
            if from == .some(nil) || to == .some(nil) { return Self.bad("from and to must be ISO 8601 times") }
            let id = try context.parameters.require("id")
            let key = "entries|\(id)|\(from??.milliseconds ?? -1)|\(to??.milliseconds ?? -1)"
            guard
                let bytes = try await cache.answer(
                    for: data.viewer, key,
                    {
                        try await data.chartPoints(id, from: from ?? nil, to: to ?? nil).map { try Self.encoded($0) }
                    })
            else { return Self.notFound }
            return Self.json(bytes: bytes)
        }
        LiveRoute.register(on: router, path: prefix + "/api/sessions/:id/live", gate: gate)
        router.get(RouterPath(prefix + "/api/sessions/:id/marks")) { request, context in
            guard let data = try await gate(request, context) else { return Self.unauthorized }
            let q = request.uri.queryParameters
            var limit = Self.defaultMarks
            if let text = q["limit"] {
                guard let value = Int(String(text)), (1...Self.maxMarks).contains(value) else {
                    return Self.bad("limit must be a number of marks from 1 to \(Self.maxMarks)")
                }
                limit = value
            }
            var after: (time: Int64, key: Int64)?
            if let text = q["after"] {
                guard let cursor = LiveRoute.parse(String(text)) else {
                    return Self.bad("after must be TIME:KEY, as the next page's link gives it")
                }
                after = cursor
            }
            let id = try context.parameters.require("id")
            guard let page = try await data.marks(id, after: after, limit: limit) else { return Self.notFound }
            let share = prefix.isEmpty ? nil : try context.parameters.require("share")
            var response = Self.json(bytes: try Self.encoded(page.marks))
            if let next = page.next {
                let path =
                    "\(share.map { "/s/" + $0 } ?? "")/api/sessions/\(id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? id)/marks"
                response.headers[HTTPField.Name("Link")!] = "<\(path)?after=\(next)&limit=\(limit)>; rel=\"next\""
            }
            return response
        }
        router.get(RouterPath(prefix + "/api/sessions/:id/plot.svg")) { request, context in
            guard let data = try await gate(request, context) else { return Self.unauthorized }
            let id = try context.parameters.require("id")
            guard let svg = try await cache.answer(for: data.viewer, "plot|\(id)", { try await data.plot(id) }) else {
                return Self.notFound
            }
            return Response(
                status: .ok, headers: [.contentType: "image/svg+xml"], body: .init(byteBuffer: ByteBuffer(bytes: svg)))
        }
    }

    /// Marks in one `/marks` answer unless `?limit=` says otherwise, and the most it may say (a mark is about
    /// 130 bytes of JSON: at most 1.3 MB an answer).
    static let defaultMarks = 1_000
    static let maxMarks = 10_000

    static func json(_ value: some Encodable) throws -> Response { json(bytes: try encoded(value)) }

    static func encoded(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return [UInt8](try encoder.encode(value))
    }

    static func json(bytes: [UInt8]) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        let body = (try? JSONEncoder().encode(["error": message])) ?? Data()
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static var unauthorized: Response { error(.unauthorized, "log in at /login, or send Authorization: Bearer TOKEN") }
    static var notFound: Response { error(.notFound, "no session has that id") }
    static func bad(_ message: String) -> Response { error(.badRequest, message) }
}
