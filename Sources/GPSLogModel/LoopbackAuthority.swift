// SPDX-License-Identifier: MIT

/// True when an HTTP authority (a Host header) names this machine's loopback: `127.0.0.1`, `localhost` or `[::1]`,
/// with or without a port. Serve's receiver and its web view both refuse other names when no token is set (a page
/// that pointed its own name at 127.0.0.1, DNS rebinding, or a proxy).
public func isLoopbackAuthority(_ authority: String?) -> Bool {
    guard let authority else { return false }
    var host = Substring(authority.lowercased())
    if host.hasPrefix("[") {
        host = host.dropFirst().prefix { $0 != "]" }
    } else if let colon = host.lastIndex(of: ":") {
        host = host[..<colon]
    }
    return ["127.0.0.1", "localhost", "::1"].contains(String(host))
}
