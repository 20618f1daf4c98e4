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
/// Each person sees their own sessions: when users have passwords (`gpslog user add`), `/login` takes a user name and
/// password, and every page and API call shows only that user's sessions (an admin's: all); a session of another's
/// is "not found". Without users, a token (serve off loopback) is the one login, which sees all; API clients may send
/// `Authorization: Bearer TOKEN` instead. A share link (`/s/TOKEN`, `gpslog share`) shows one session without a
/// login. The static files (the libraries, the style) need none. See `Logins`.
public struct WebView: Sendable {
    /// The SQLite database shown, opened for each request (off the event loop); with `sessionStore`, the one that
    /// keeps the users, logins and share links only.
    public var databasePath: String
    /// Where sessions are read from instead of `databasePath` (PostgreSQL, `serve --store postgres://`); nil: the
    /// SQLite database. The history map, the statistics and the days read it too.
    public var sessionStore: ViewStoreOpener?
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
    /// Cookies get `Secure`: set when serve listens beyond loopback.
    public var secureCookies = false
    /// Where Debian's libjs packages install the libraries.
    public var libraries = "/usr/share/javascript"
    /// Where a position is, for /stats: its country code and town, from the places index; nil: no countries.
    public typealias Locate = @Sendable (_ latitude: Double, _ longitude: Double) -> (country: String, town: String?)?
    /// Looks places up for /stats' countries and towns; nil: none shown.
    public var locate: Locate?

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
    public static let postPaths: Set<String> = ["/login", "/logout"]

    /// Adds the view's routes (GET, and POST `/login` and `/logout`) to a router.
    public func register<Context: RemoteAddressRequestContext>(on router: Router<Context>) {
        let logins = Logins(token: token, databasePath: databasePath, sessions: sessionStore, secure: secureCookies)
        let throttle = LoginThrottle()
        let view = self
        if let tileFile { Basemap.register(file: tileFile, logins: logins, on: router) }
        router.get("/static/:file") { _, context in try Static.asset(context.parameters.require("file")) }
        for library in ["leaflet", "dygraphs"] {
            router.get(RouterPath("/lib/\(library)/**")) { request, _ in
                Static.library(library, path: request.uri.path, root: view.libraries)
            }
        }
        router.get("/login") { _, _ in Self.html(Pages.login(failed: false, user: try await logins.asksForUser())) }
        router.post("/login") { request, context in
            let client = context.remoteAddress?.ipAddress ?? "unknown"
            let asksForUser = try await logins.asksForUser()
            // Checked before the password is read, and per address whatever the user name: a refused address learns
            // nothing from its guess, and switching names gains nothing.
            if let wait = throttle.retryAfter(client) {
                view.logger.warning("refused a login from \(client.visible): too many wrong logins, \(wait) s to wait")
                var response = Self.html(
                    Pages.login(failed: true, user: asksForUser, wait: wait), status: .tooManyRequests)
                response.headers[.retryAfter] = String(wait)
                return response
            }
            let form = String(buffer: try await request.body.collect(upTo: 4096))
            // A browser's form encoding sends a space as '+' (and a '+' as %2B); URLComponents leaves '+' alone.
            let items = URLComponents(string: "/?" + form.replacingOccurrences(of: "+", with: "%20"))?.queryItems ?? []
            let field = { (name: String) in items.first { $0.name == name }?.value }
            let user = field("user").flatMap { $0.isEmpty ? nil : $0 }
            let secret = (user == nil ? field("token") : field("password")) ?? ""
            let who = user.map { "user \($0.visible)" } ?? "the token"
            guard let cookie = try await logins.login(user: user, secret: secret) else {
                throttle.failed(client)
                let what = user.map { "a wrong password for user \($0.visible)" } ?? "a wrong token"
                view.logger.warning("\(what) was given at /login from \(client.visible)")
                return Self.html(Pages.login(failed: true, user: asksForUser), status: .unauthorized)
            }
            view.logger.info("a login as \(who) at /login from \(client.visible)")
            var response = Response(status: .seeOther, headers: [.location: "/"])
            response.setCookie(cookie)
            return response
        }
        for method in [HTTPRequest.Method.get, .post] {
            router.on("/logout", method: method) { request, _ in
                var response = Self.toLogin
                response.setCookie(try await logins.logout(request))
                return response
            }
        }
        router.get("/") { request, _ in
            guard let data = try await logins.data(for: request) else { return Self.toLogin }
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
            guard let data = try await logins.data(for: request) else { return Self.toLogin }
            return try await view.sessionPage(data, try context.parameters.require("id"), request, base: nil)
        }
        // A share link: the one session's page, its API under the link's path (below), nothing else.
        router.get("/s/:share") { request, context in
            let share = try context.parameters.require("share")
            guard let data = try await logins.data(for: request, share: share),
                let id = try await data.sessions().first?.id
            else {
                return Self.html(
                    Pages.page(title: "No such link", "<p>This link has expired, was revoked, or never was.</p>"),
                    status: .notFound)
            }
            return try await view.sessionPage(data, id, request, base: "/s/" + share)
        }
        let routes = APIRoutes(
            logins: logins, cache: sessionStore == nil ? ViewCache(databasePath: databasePath) : ViewCache())
        routes.register(on: router)
        routes.registerSessionRoutes(on: router, prefix: "/s/:share")
        StatsPage.register(on: router, logins: logins, locate: locate)
        DayPage.register(on: router, logins: logins, tiles: mapTiles)
        HistoryRoutes.register(logins: logins, tiles: mapTiles, on: router)
        HistoryWarmer.start(
            databasePath: sessionStore == nil ? databasePath : nil, open: logins.sessions, logger: logger)
    }

    /// A session's page as `data`'s viewer sees it; 404 when they may not see it. `base` is a share link's path:
    /// the page's links and API calls go under it.
    func sessionPage(_ data: ViewData, _ id: String, _ request: Request, base: String?) async throws -> Response {
        let after = request.uri.queryParameters["marks"].flatMap { LiveRoute.parse(String($0)) }
        guard let (s, marks) = try await data.sessionWithMarks(id, after: after, limit: Pages.maxListedMarks) else {
            return Self.html(Pages.page(title: "No such session", "<p>No session has that id.</p>"), status: .notFound)
        }
        return Self.html(Pages.session(s, marks: marks, first: after == nil, tiles: mapTiles, base: base))
    }

    /// The map's tiles: the MBTiles file's, else the URL template's; nil: no basemap.
    var mapTiles: MapTiles? {
        tileFile.map { MapTiles(file: $0, attribution: attribution.isEmpty ? nil : attribution) }
            ?? tiles.map { MapTiles(template: $0, attribution: attribution) }
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
