// SPDX-License-Identifier: MIT
import Crypto

/// A device's token for `gpslog serve`: `gpsl_` and 256 random bits in base64url (43 characters), shown once by
/// `gpslog device add`; the database keeps only its SHA-256.
///
/// Why SHA-256 and not a slow password hash (Argon2, as people's passwords get): a slow hash protects a secret that
/// can be guessed, such as a password a person chose. 256 random bits cannot be guessed, from a stolen database
/// either, so a slow hash would add nothing but its time (tens of milliseconds) to every request a phone sends.
public enum DeviceToken {
    /// What every device token starts with, so a leaked one is recognised (secret scanners, logs).
    public static let prefix = "gpsl_"

    /// A new token from the system's random number generator.
    public static func make() -> String {
        var rng = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &rng) }
        return prefix + base64URL(bytes)
    }

    /// The SHA-256 of the token's text: what the database keeps and looks up.
    public static func hash(_ token: String) -> [UInt8] { Array(SHA256.hash(data: Array(token.utf8))) }

    /// Base64url without padding (RFC 4648 §5): safe in a URL's query, a header and a shell word.
    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let chunk = bytes[i..<min(i + 3, bytes.count)]
            var n = UInt32(0)
            for (k, b) in chunk.enumerated() { n |= UInt32(b) << (16 - 8 * UInt32(k)) }
            for k in 0..<(chunk.count + 1) { out.append(alphabet[Int((n >> (18 - 6 * UInt32(k))) & 63)]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
