// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogStore
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The web view `gpslog serve` shows beside its receiver, on the same port: the sessions page at `/` (GET; a POST
/// anywhere stays the receiver's), a session's page with its map and charts, and the JSON API they use under
/// `/api/`. Leaflet and dygraphs come from Debian's libjs packages, read from where Debian installs them and served
/// by gpslog; the page asks no other host but the tile server (none with an MBTiles file: gpslog serves its tiles).
///
/// With a token (serve off loopback), every page and API call needs it: a login form sets a random cookie, and API
/// clients may send `Authorization: Bearer TOKEN` instead. The static files (the libraries, the style) need none.
public struct WebView: Sendable {
    /// The SQLite database shown, opened for each request (off the event loop).
    public var databasePath: String
    /// The tile URL template (`{z}/{x}/{y}`); nil: no tiles, the track on a plain background.
    public var tiles: String?
    /// What the tiles ask to be credited with.
    public var attribution: String
    /// The user's own MBTiles file, served at `/tiles/{z}/{x}/{y}` in place of `tiles`; credited with its own
    /// attribution unless `attribution` is given.
    public var tileFile: MBTilesFile?
    /// Needed for everything but the static files; nil on loopback.
    public var token: AccessToken?
    /// Where logins and refused logins are logged (a client's address escaped, never the token).
    public var logger: Logger
    /// Where Debian's libjs packages install the libraries.
    public var libraries = "/usr/share/javascript"

    /// OpenStreetMap's standard tiles, fetched by the user's browser, with the attribution they require.
    public static let openStreetMap = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    /// The credit OpenStreetMap's tiles require, as HTML for the map's corner.
    public static let openStreetMapAttribution =
        "© <a href=\"https://www.openstreetmap.org/copyright\">OpenStreetMap</a> contributors"

    /// A view of `databasePath`; the libraries are read from `/usr/share/javascript` unless `libraries` is changed.
    public init(databasePath: String, tiles: String?, attribution: String, token: AccessToken?, logger: Logger) {
        self.databasePath = databasePath
        self.tiles = tiles
        self.attribution = attribution
        self.token = token
        self.logger = logger
    }

    /// The paths the view answers POSTs on (every other POST is the receiver's).
    public static let postPaths: Set<String> = ["/login"]

    /// Adds the view's routes (GET, and POST `/login`) to a router.
    public func register<Context: RemoteAddressRequestContext>(on router: Router<Context>) {
        let data = ViewData(databasePath: databasePath)
        let logins = Logins(token: token)
        let throttle = LoginThrottle()
        let view = self
        let mapTiles =
            tileFile.map { MapTiles(file: $0, attribution: attribution.isEmpty ? nil : attribution) }
            ?? tiles.map { MapTiles(template: $0, attribution: attribution) }
        if let tileFile { Basemap.register(file: tileFile, logins: logins, on: router) }
        router.get("/static/:file") { _, context in try Static.asset(context.parameters.require("file")) }
        for library in ["leaflet", "dygraphs"] {
            router.get(RouterPath("/lib/\(library)/**")) { request, _ in
                Static.library(library, path: request.uri.path, root: view.libraries)
            }
        }
        router.get("/login") { _, _ in Self.html(Pages.login(failed: false)) }
        router.post("/login") { request, context in
            let client = context.remoteAddress?.ipAddress ?? "unknown"
            // Checked before the token is read: a refused address learns nothing from its guess.
            if let wait = throttle.retryAfter(client) {
                view.logger.warning("refused a login from \(client.visible): too many wrong tokens, \(wait) s to wait")
                var response = Self.html(Pages.login(failed: true, wait: wait), status: .tooManyRequests)
                response.headers[.retryAfter] = String(wait)
                return response
            }
            let form = String(buffer: try await request.body.collect(upTo: 4096))
            let given = URLComponents(string: "/?" + form)?.queryItems?.first { $0.name == "token" }?.value ?? ""
            guard let cookie = logins.login(given) else {
                throttle.failed(client)
                view.logger.warning("a wrong token was given at /login from \(client.visible)")
                return Self.html(Pages.login(failed: true), status: .unauthorized)
            }
            view.logger.info("a login at /login from \(client.visible)")
            var response = Response(status: .seeOther, headers: [.location: "/"])
            response.setCookie(cookie)
            return response
        }
        router.get("/") { request, _ in
            guard logins.allows(request) else { return Self.toLogin }
            let q = request.uri.queryParameters
            let (name, from, to) = (
                q["name"].map(String.init) ?? "", q["from"].map(String.init) ?? "",
                q["to"].map(String.init) ?? ""
            )
            let items = try await data.sessions(
                name: name.isEmpty ? nil : name, from: Timestamp(iso8601: from),
                to: Timestamp(iso8601: to).map { Timestamp(milliseconds: $0.milliseconds + 86_400_000 - 1) })
            return Self.html(Pages.sessions(items, name: name, from: from, to: to))
        }
        router.get("/sessions/:id") { request, context in
            guard logins.allows(request) else { return Self.toLogin }
            let after = request.uri.queryParameters["marks"].flatMap { LiveRoute.parse(String($0)) }
            guard
                let (s, marks) = try await data.sessionWithMarks(
                    try context.parameters.require("id"), after: after, limit: Pages.maxListedMarks)
            else {
                return Self.html(
                    Pages.page(title: "No such session", "<p>No session has that id.</p>"), status: .notFound)
            }
            return Self.html(
                Pages.session(s, marks: marks, first: after == nil, tiles: mapTiles))
        }
        APIRoutes(data: data, logins: logins, cache: ViewCache(databasePath: databasePath)).register(on: router)
    }

    static var toLogin: Response { Response(status: .seeOther, headers: [.location: "/login"]) }

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8",
                // The page may load only what gpslog serves, and images (tiles) from anywhere.
                .contentSecurityPolicy:
                    "default-src 'self'; img-src 'self' data: https: http:; style-src 'self' 'unsafe-inline'",
            ], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// Who may see the view: everyone when there is no token; else whoever logged in (a random cookie, kept in memory
/// until serve stops) or sends the token as a bearer.
final class Logins: Sendable {
    private let token: AccessToken?
    private let cookies = NIOLockedValueBox(Set<String>())
    static let cookieName = "gpslog_view"

    init(token: AccessToken?) { self.token = token }

    func allows(_ request: Request) -> Bool {
        // No token: serve listens on loopback, and only a page of this machine's may read it. A request for another
        // host name is a web page that pointed its own name at 127.0.0.1 (DNS rebinding), or a proxy: refused.
        guard let token else { return Self.isLoopbackHost(request.head.authority) }
        if let value = request.cookies[Self.cookieName]?.value, cookies.withLockedValue({ $0.contains(value) }) {
            return true
        }
        if let auth = request.headers[.authorization], auth.hasPrefix("Bearer ") {
            return constantTimeEqual(String(auth.dropFirst(7)), token.secret)
        }
        return false
    }

    /// `127.0.0.1`, `localhost` or `[::1]`, with or without a port (`isLoopbackAuthority`, shared with the other side
    /// of serve).
    static func isLoopbackHost(_ authority: String?) -> Bool { isLoopbackAuthority(authority) }

    /// A cookie for a right token; nil for a wrong one.
    func login(_ given: String) -> Cookie? {
        guard let token, constantTimeEqual(given, token.secret) else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &generator) }
        let value = bytes.map { String(format: "%02x", $0) }.joined()
        cookies.withLockedValue { _ = $0.insert(value) }
        return Cookie(name: Self.cookieName, value: value, path: "/", httpOnly: true, sameSite: .strict)
    }

    /// Compares without stopping at the first difference, so the time taken tells nothing of the token.
    private func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) {
            difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return difference == 0
    }
}
