// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import HTTPTypes
import Hummingbird

/// Keeps web pages out of the receiver. A page from any site the user visits can make the browser POST to
/// `http://127.0.0.1:8080/` without asking first ("simple" requests: an HTML form, or `fetch` with `mode: 'no-cors'`),
/// as long as the body is `text/plain`, a form, or has no type. Phones and `gpslog upload` send
/// `application/json` (Overland, OwnTracks: `application/json; charset=utf-8`), which a browser sends to another
/// origin only after a CORS preflight that this server never grants. So a POST is refused when:
/// - its Content-Type is not `application/json` (415);
/// - it carries an `Origin` (every browser POST does) other than the server's own, or `Sec-Fetch-Site` says another
///   site (403);
/// - with no token (serve on loopback), its `Host` is not `127.0.0.1`, `localhost` or `[::1]` (403): a page that
///   pointed its own host name at 127.0.0.1 (DNS rebinding) is same-origin with the server, but its requests name
///   that host.
enum BrowserGuard {
    /// Why `request` looks like a browser's cross-site POST; nil when it does not.
    static func crossSiteRefusal(_ request: Request, tokenRequired: Bool) -> String? {
        let authority = request.head.authority
        if !tokenRequired && !isLoopbackHost(authority) {
            return "its Host \((authority ?? "(none)").visible) is not 127.0.0.1, localhost or [::1]"
                + " (a web page's address pointed at this machine?)"
        }
        if let origin = request.headers[.origin] {
            let own = authority.map { ["http://" + $0.lowercased(), "https://" + $0.lowercased()] } ?? []
            if !own.contains(origin.lowercased()) {
                return "it comes from the web page of another site (Origin \(origin.visible))"
            }
        }
        if let site = HTTPField.Name("Sec-Fetch-Site").flatMap({ request.headers[$0] }),
            !["same-origin", "none"].contains(site.lowercased())
        {
            return "it comes from the web page of another site (Sec-Fetch-Site \(site.visible))"
        }
        return nil
    }

    /// True when the body is declared JSON (`application/json`, any parameters): the type phones send, and one a
    /// browser cannot send to another site without a preflight.
    static func declaresJSON(_ request: Request) -> Bool {
        guard let type = request.headers[.contentType] else { return false }
        let essence = type.split(separator: ";", maxSplits: 1).first ?? ""
        return essence.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }

    /// `127.0.0.1`, `localhost` or `[::1]`, with or without a port (`isLoopbackAuthority`, shared with the other side
    /// of serve).
    static func isLoopbackHost(_ authority: String?) -> Bool { isLoopbackAuthority(authority) }
}
