// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogConfig
import GPSLogModel
import GPSLogReceiver
import GPSLogView
import Hummingbird
import Logging

/// `serve`'s web view: on by default, its tiles, and a token of its own.
struct ViewOptions: ParsableArguments {
    @Flag(help: "Serve no web view (only the receiving endpoints).") var noView = false
    @Option(
        help: ArgumentHelp(
            "Map tiles for the web view, a URL template with {z}/{x}/{y} (default: OpenStreetMap's), or none.",
            valueName: "url"))
    var tiles: String?
    @Option(help: "Credit for --tiles, shown on the map (HTML; default: OpenStreetMap's).") var tilesAttribution:
        String?
    @Option(
        help: ArgumentHelp(
            "File holding a read-only token for the web view (default: the view takes the serve token).",
            valueName: "path"))
    var viewTokenFile: String?

    func validate() throws {
        if let tiles, tiles != "none" {
            guard let url = URLComponents(string: tiles.replacingOccurrences(of: "{", with: "%7B")),
                ["http", "https"].contains(url.scheme ?? ""), tiles.contains("{z}"), tiles.contains("{x}"),
                tiles.contains("{y}")
            else { throw ValidationError("--tiles must be an http(s) URL template with {z}, {x} and {y}, or none.") }
        }
    }

    /// The view's routes for the receiver's router; nil with --no-view.
    func routes(database: String, token: AccessToken?, logger: Logger) throws -> (
        @Sendable (Router<ReceiverContext>) -> Void
    )? {
        guard !noView else { return nil }
        var viewToken = token
        if let file = viewTokenFile {
            if PrivateFiles.isReadableByOthers(file) { TokenFileWarning.once(file) }
            do { viewToken = try PrivateFiles.token(at: file) } catch {
                throw ValidationError(error.errorDescription ?? "cannot read --view-token-file")
            }
        }
        let url = tiles == "none" ? nil : tiles ?? WebView.openStreetMap
        let view = WebView(
            databasePath: database, tiles: url,
            attribution: tilesAttribution ?? (tiles == nil ? WebView.openStreetMapAttribution : ""), token: viewToken,
            logger: logger)
        return { router in view.register(on: router) }
    }
}
