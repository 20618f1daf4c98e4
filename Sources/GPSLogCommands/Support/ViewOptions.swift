// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogConfig
import GPSLogModel
import GPSLogReceiver
import GPSLogStore
import GPSLogView
import Hummingbird
import Logging

/// `serve`'s web view: on by default, its tiles, and a token of its own.
struct ViewOptions: ParsableArguments {
    @Flag(help: "Serve no web view (only the receiving endpoints).") var noView = false
    @Option(
        help: ArgumentHelp(
            "Map tiles for the web view: a URL template with {z}/{x}/{y} (default: OpenStreetMap's), an MBTiles file of raster tiles (served by gpslog, for a map offline), or none.",
            valueName: "url|file"))
    var tiles: String?
    @Option(help: "Credit for --tiles, shown on the map (HTML; default: OpenStreetMap's, or the MBTiles file's).")
    var tilesAttribution: String?
    @Option(
        help: ArgumentHelp(
            "File holding a read-only token for the web view (default: the view takes the serve token).",
            valueName: "path"))
    var viewTokenFile: String?

    func validate() throws {
        guard !OptionChecks.deferred else { return }  // run once the config settings are applied
        if let tiles, tiles != "none", !Self.isFile(tiles) {
            guard let url = URLComponents(string: tiles.replacingOccurrences(of: "{", with: "%7B")),
                ["http", "https"].contains(url.scheme ?? ""), tiles.contains("{z}"), tiles.contains("{x}"),
                tiles.contains("{y}")
            else { throw ValidationError("--tiles must be an http(s) URL template with {z}, {x} and {y}, or none.") }
        }
    }

    /// Whether `--tiles` names a file (an MBTiles database) rather than a tile server: neither `://` nor `{` in it.
    static func isFile(_ tiles: String) -> Bool { tiles != "none" && !tiles.contains("://") && !tiles.contains("{") }

    /// The view's token: `--view-token-file`'s, held to the serve token's rules (16 characters at least off
    /// loopback), else the serve token.
    func viewToken(serveToken: AccessToken?, offLoopback: Bool) throws -> AccessToken? {
        guard let file = viewTokenFile else { return serveToken }
        if PrivateFiles.isReadableByOthers(file) { TokenFileWarning.once(file) }
        let token: AccessToken
        do { token = try PrivateFiles.token(at: file) } catch {
            throw ValidationError(error.errorDescription ?? "cannot read --view-token-file")
        }
        if offLoopback {
            do { try token.checkStrongEnoughOffLoopback(origin: "--view-token-file \(file.visible)") } catch {
                throw ValidationError(error.errorDescription ?? "--view-token-file holds too short a token")
            }
        }
        return token
    }

    /// The view's routes for the receiver's router; nil with --no-view. `sessions` opens the store sessions are
    /// read from when it is not `database` (PostgreSQL), which then keeps the users and logins only.
    func routes(
        database: String, sessions: ViewStoreOpener? = nil, token: AccessToken?, offLoopback: Bool, logger: Logger
    ) throws -> (
        @Sendable (Router<ReceiverContext>) -> Void
    )? {
        guard !noView else { return nil }
        let viewToken = try viewToken(serveToken: token, offLoopback: offLoopback)
        // A file is opened and checked now: a wrong one is refused before serve listens, naming what is wrong.
        let file = try tiles.flatMap { Self.isFile($0) ? try MBTilesFile(path: $0) : nil }
        let url = tiles == "none" || file != nil ? nil : tiles ?? WebView.openStreetMap
        var view = WebView(
            databasePath: database, tiles: url,
            attribution: tilesAttribution ?? (tiles == nil ? WebView.openStreetMapAttribution : ""), token: viewToken,
            logger: logger)
        view.secureCookies = offLoopback
        view.tileFile = file
        view.sessionStore = sessions
        // /stats without countries when the places index is not installed (serve says so for addresses already).
        view.locate = try? PlacesLookup.locate()
        return { [view] router in view.register(on: router) }
    }
}
