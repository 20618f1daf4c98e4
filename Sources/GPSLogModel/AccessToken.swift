// SPDX-License-Identifier: MIT
import FoundationEssentials  // LocalizedError, without all of Foundation

/// A shared secret that a request carries (`Authorization: Bearer`, `?access_token=`, a Basic password).
///
/// An `AccessToken` is never empty and never only white space: a token that could be empty would turn
/// authentication off by accident (`--token ''`, `GPSLOG_TOKEN=` in a unit file). Its `description` is `***`, so
/// string interpolation into a log line or an error cannot leak it; `secret` is the text itself, for the one
/// comparison or header that needs it.
public struct AccessToken: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The token itself. Send it or compare it; never print it.
    public let secret: String

    /// Longest token taken: far above any real token, small enough that a header stays cheap to compare.
    public static let maximumLength = 4096
    /// Shortest token taken when `serve` listens beyond loopback, where anyone on the network can try tokens.
    public static let minimumLengthOffLoopback = 16

    /// Checks `text` as a token given by `origin` (`--token`, `$GPSLOG_TOKEN`, a config key).
    public init(_ text: String, origin: String) throws(AccessTokenError) {
        if text.isEmpty { throw .empty(origin: origin) }
        if text.unicodeScalars.allSatisfy(\.properties.isWhitespace) { throw .empty(origin: origin) }
        if text.utf8.count > Self.maximumLength { throw .tooLong(origin: origin, limit: Self.maximumLength) }
        // One word of printable characters: white space or a control character is a paste accident, and either
        // would be mangled in an Authorization header.
        if text.unicodeScalars.contains(where: {
            $0.properties.isWhitespace || $0.properties.generalCategory == .control
        }) {
            throw .notOneWord(origin: origin)
        }
        secret = text
    }

    /// The token from an option if given, else from the environment variable `name` if it is set (even empty:
    /// a set but empty variable is a mistake to report, not a request to turn authentication off).
    public static func resolve(option: String?, environment: [String: String], name: String = "GPSLOG_TOKEN")
        throws(AccessTokenError) -> AccessToken?
    {
        if let option { return try AccessToken(option, origin: "--token") }
        if let value = environment[name] { return try AccessToken(value, origin: "$" + name) }
        return nil
    }

    /// Refuses a token too short to stand against guessing from the network.
    public func checkStrongEnoughOffLoopback(origin: String) throws(AccessTokenError) {
        if secret.count < Self.minimumLengthOffLoopback {
            throw .tooShortOffLoopback(origin: origin, minimum: Self.minimumLengthOffLoopback)
        }
    }

    /// Always `***`, so a token interpolated into a log line or an error stays hidden.
    public var description: String { "***" }
    /// `AccessToken(***)`: hidden in `debugPrint` and dumps too.
    public var debugDescription: String { "AccessToken(***)" }
}

/// Why a token was refused. The words name where the token came from, never the token.
public enum AccessTokenError: LocalizedError, Equatable {
    case empty(origin: String)
    case notOneWord(origin: String)
    case tooLong(origin: String, limit: Int)
    case tooShortOffLoopback(origin: String, minimum: Int)

    /// What was wrong with the token and what to do, for people; it names where the token came from, never the token.
    public var errorDescription: String? {
        switch self {
        case .empty(let origin):
            "\(origin) is empty: an empty token would turn authentication off. Give a real token, or leave \(origin) out."
        case .notOneWord(let origin):
            "\(origin) holds white space or a control character: a token is one word of printable characters."
        case .tooLong(let origin, let limit):
            "\(origin) is longer than \(limit) bytes."
        case .tooShortOffLoopback(let origin, let minimum):
            "\(origin) is shorter than \(minimum) characters, too easy to guess from the network: use a longer token "
                + "(e.g. `openssl rand -hex 16`) or listen on 127.0.0.1."
        }
    }
}

/// A secret that is not a token (an MQTT password: it may hold spaces). Printing it, or anything that holds it,
/// shows `***`.
public struct SecretText: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret itself. Send it; never print it.
    public let secret: String
    /// Wraps a secret as given (spaces and all).
    public init(_ secret: String) { self.secret = secret }
    /// Always `***`, so the secret stays out of logs and errors.
    public var description: String { "***" }
    /// Always `***`, in `debugPrint` and dumps too.
    public var debugDescription: String { "***" }
}
