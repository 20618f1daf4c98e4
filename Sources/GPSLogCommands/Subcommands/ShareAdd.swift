// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel
import GPSLogReceiver
import GPSLogStore

extension GPSLog {
    /// `gpslog share add` (and `gpslog share SESSION`).
    struct ShareAdd: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Make a link to one session and print it, shown this once, alone on the last line.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The session: its name, id or a unique id prefix.") var session: String
        @Option(help: ArgumentHelp("How long the link works: hours (12h), days (7d) or weeks (2w), at most 365d."))
        var expires = "7d"
        @Option(
            help: ArgumentHelp(
                "Where serve's web view is reached, as the link's start (e.g. https://gps.example.org).",
                valueName: "url"))
        var baseURL = "http://127.0.0.1:8080"

        /// The longest a link may work.
        static let maxMilliseconds: Int64 = 365 * 86_400_000

        /// `12h`, `7d`, `2w` in milliseconds, from an hour to 365 days; nil otherwise.
        static func lifetime(_ text: String) -> Int64? {
            let units: [(String, Int64)] = [("h", 3_600_000), ("d", 86_400_000), ("w", 7 * 86_400_000)]
            for (suffix, factor) in units where text.hasSuffix(suffix) {
                guard let n = Int64(text.dropLast()), n > 0, n <= maxMilliseconds / factor else { return nil }
                return n * factor
            }
            return nil
        }

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            guard Self.lifetime(expires) != nil else {
                throw ValidationError(
                    "--expires must be hours, days or weeks (12h, 7d, 2w), at most 365d: '\(expires)'")
            }
            guard let url = URLComponents(string: baseURL), ["http", "https"].contains(url.scheme ?? ""),
                url.host?.isEmpty == false, url.query == nil
            else { throw ValidationError("--base-url must be an http(s) URL such as https://gps.example.org") }
        }

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            let s = try store.resolveSession(session)
            let now = Timestamp(seconds: Date().timeIntervalSince1970)
            let until = Timestamp(milliseconds: now.milliseconds + (Self.lifetime(expires) ?? 7 * 86_400_000))
            var rng = SystemRandomNumberGenerator()
            let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &rng)) }.joined()
            let id = try store.addShare(session: s.id, tokenHash: DeviceToken.hash(token), at: now, expires: until)
            let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            print(
                "Shared '\(s.name.visible)' until \(until.iso8601()) (share \(id); gpslog share revoke \(id) ends it):")
            print(base + "/s/" + token)
        }
    }
}
