// SPDX-License-Identifier: MIT
import Foundation

/// An error in plain words for a log line or a message on stderr: "connection refused by 127.0.0.1:1", "cancelled",
/// "timed out after 30 s", never a Swift type dump such as `SingleConnectionFailure(target: [IPv4]...)` or
/// `Swift.CancellationError error 1.`
///
/// Our own errors are `LocalizedError`s and say themselves. The errors of the network libraries (SwiftNIO,
/// AsyncHTTPClient, PostgresNIO) are read by their type's name and stored fields, as this module sits below them and
/// imports none: `IOError`'s errno, `NIOConnectionError`'s and `SingleConnectionFailure`'s address and cause,
/// `HTTPClientError`'s and `ChannelError`'s case, `PSQLError`'s underlying error. Anything else gets its case name or
/// its type's name in words.
/// - Parameters:
///   - error: the error to describe.
///   - peer: what was being reached ("127.0.0.1:1", or a URL: its host and port), named in a refused or unreachable
///     connection. A URL's user and password are never named.
///   - timeout: the wait, in seconds, named in a timeout.
/// - Returns: the error in words; a `LocalizedError`'s own `errorDescription` as it is.
public func describeForPeople(_ error: any Error, peer: String? = nil, timeout: Double? = nil) -> String {
    ErrorWords(peer: peer.map(ErrorWords.hostAndPort), timeout: timeout).describe(error, depth: 0)
}

private struct ErrorWords {
    var peer: String?
    let timeout: Double?

    func describe(_ error: any Error, depth: Int) -> String {
        if error is CancellationError { return "cancelled" }
        if let posix = error as? POSIXError { return errno(posix.code.rawValue) }
        if let localized = error as? LocalizedError, let text = localized.errorDescription { return text }
        let name = String(describing: type(of: error))
        let mirror = Mirror(reflecting: error)
        switch name {
        case "IOError":
            // NIO's `IOError { failureDescription: String, error: .errno(CInt) }`.
            if let code = Self.payload(of: mirror.descendant("error"), as: Int32.self) { return errno(code) }
        case "NIOConnectionError":
            var inner = self
            if let host = mirror.descendant("host") as? String, let port = mirror.descendant("port") as? Int {
                inner.peer = "\(host):\(port)"
            }
            for field in ["dnsAError", "dnsAAAAError"] {
                if let dns = Self.unwrap(mirror.descendant(field)) as? any Error {
                    return "cannot resolve \(inner.peer ?? "the host") (\(inner.describe(dns, depth: depth + 1)))"
                }
            }
            if let failures = mirror.descendant("connectionErrors") as? [Any], let first = failures.first {
                return inner.single(Mirror(reflecting: first), depth: depth)
            }
            return "cannot connect to \(inner.peer ?? "the server")"
        case "HTTPClientError", "ChannelError", "NIOSSLError":
            let code = name == "HTTPClientError" ? mirror.descendant("code") ?? error : error
            return caseWords(Self.caseName(code))
        case "PSQLError":
            // Its description hides everything on purpose; the words are in its (class) backing's fields.
            let backing = mirror.descendant("backing")
            if depth < 4,
                let underlying = Self.unwrap(backing.flatMap { Mirror(reflecting: $0).descendant("underlying") })
                    as? any Error
            {
                return describe(underlying, depth: depth + 1)
            }
            if let code = backing.flatMap({ Mirror(reflecting: $0).descendant("code", "base") }) {
                return caseWords(Self.caseName(code))
            }
        default:
            if mirror.displayStyle == .enum { return caseWords(Self.caseName(error)) }
        }
        // A struct or class we do not know: a wrapped error if it holds one, else its type's name in words.
        if depth < 4 {
            for child in mirror.children {
                if let inner = Self.unwrap(child.value) as? any Error { return describe(inner, depth: depth + 1) }
            }
        }
        return Self.words(name)
    }

    /// NIO's `SingleConnectionFailure { target: SocketAddress, error: Error }`.
    func single(_ mirror: Mirror, depth: Int) -> String {
        var inner = self
        if let target = mirror.descendant("target") {
            // SocketAddress reads "[IPv4]localhost/127.0.0.1:1": the address is after the slash.
            let text = "\(target)"
            inner.peer = text.split(separator: "/").last.map(String.init) ?? text
        }
        if let cause = mirror.descendant("error") as? any Error { return inner.describe(cause, depth: depth + 1) }
        return "cannot connect to \(inner.peer ?? "the server")"
    }

    /// An errno in words, naming the peer where the connection failed.
    func errno(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        let words = text.prefix(1).lowercased() + text.dropFirst()
        switch code {
        case ECONNREFUSED, ECONNRESET, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT:
            if let peer { return words + (code == ECONNREFUSED ? " by " : " talking to ") + peer }
        default: break
        }
        return words
    }

    /// The words for a library's error case, with the timeouts and the usual ones said the way people say them.
    func caseWords(_ name: String) -> String {
        let lower = name.lowercased()
        if lower.hasSuffix("timeout") || lower == "deadlineexceeded" {
            let what = lower.hasPrefix("connect") ? "timed out connecting" : "timed out"
            let to = lower.hasPrefix("connect") ? peer.map { " to \($0)" } ?? "" : ""
            return what + to + (timeout.map { " after \(Self.seconds($0))" } ?? "")
        }
        switch lower {
        case "cancelled", "requeststreamcancelled", "querycancelled": return "cancelled"
        case "remoteconnectionclosed", "serverclosedconnection", "eof", "uncleanshutdown":
            return "the connection was closed by " + (peer ?? "the server")
        case "ioonclosedchannel", "alreadyclosed", "clientclosedconnection": return "the connection was already closed"
        default: return Self.words(name)
        }
    }

    /// "http://user:pw@host:8080/x" -> "host:8080"; a URL without a port gets its scheme's.
    static func hostAndPort(_ peer: String) -> String {
        guard peer.contains("://"), let url = URLComponents(string: peer), let host = url.host else { return peer }
        let port = url.port ?? ["http": 80, "https": 443, "postgres": 5432, "postgresql": 5432][url.scheme ?? ""]
        return port.map { "\(host):\($0)" } ?? host
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }

    /// An enum case's name without its payload: `connectTimeout(30s)` -> `connectTimeout`.
    static func caseName(_ value: Any) -> String {
        // A case with a payload: the mirror names it, whatever the library's description says.
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .enum, let label = mirror.children.first?.label { return label }
        let text = "\(value)"
        let name = text.prefix { $0 != "(" }
        let last = String(name.split(separator: ".").last ?? name[...])
        // A library's own description in words (NIO's `ChannelError` says "I/O on closed channel"): camelCase again.
        let parts = last.split(separator: " ").map { $0.filter(\.isLetter) }.filter { !$0.isEmpty }
        guard parts.count > 1 else { return last }
        return parts.enumerated().map { $0 == 0 ? String($1) : $1.prefix(1).uppercased() + $1.dropFirst() }.joined()
    }

    /// The first payload of an enum case (`.errno(111)` -> 111), when it has the type asked for.
    static func payload<T>(of value: Any?, as: T.Type) -> T? {
        guard let value else { return nil }
        return Mirror(reflecting: value).children.first?.value as? T
    }

    /// An optional's value, or the value itself.
    static func unwrap(_ value: Any?) -> Any? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first?.value
    }

    /// camelCase (or a type's name) in lower-case words: `HTTPClientError` -> "http client error".
    static func words(_ name: String) -> String {
        var out = ""
        let chars = Array(name)
        for (i, c) in chars.enumerated() {
            let next = i + 1 < chars.count ? chars[i + 1] : nil
            let prev = i > 0 ? chars[i - 1] : nil
            if c.isUppercase, let prev, prev.isLowercase || (prev.isUppercase && next?.isLowercase == true) {
                out += " "
            }
            out += c.lowercased()
        }
        return out.filter { $0.isLetter || $0.isNumber || $0 == " " }
    }
}
