// SPDX-License-Identifier: MIT
import CArgon2
import FoundationEssentials  // LocalizedError

/// Argon2id password hashes, in the encoded form (`$argon2id$v=19$m=...,t=...,p=...$SALT$HASH`) that carries its
/// own parameters and salt, so a hash made today still verifies after the defaults grow.
public enum PasswordHash {
    /// Passes over the memory (OWASP's recommended Argon2id: 19 MiB, 2 passes, 1 lane).
    public static let passes: UInt32 = 2
    /// Memory in KiB.
    public static let memoryKiB: UInt32 = 19 * 1024
    /// Lanes (threads).
    public static let lanes: UInt32 = 1
    /// Longest password taken: far above any real one, and a bound on the work one costs.
    public static let maximumLength = 1024

    /// Hashes `password` with a fresh 16-byte random salt.
    public static func make(_ password: String) throws(PasswordHashError) -> String {
        let bytes = Array(password.utf8)
        guard bytes.count <= maximumLength else { throw .tooLong(limit: maximumLength) }
        var rng = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &rng) }
        let length = argon2_encodedlen(passes, memoryKiB, lanes, UInt32(salt.count), 32, Argon2_id)
        var encoded = [CChar](repeating: 0, count: length)
        try check(
            argon2id_hash_encoded(
                passes, memoryKiB, lanes, bytes, bytes.count, salt, salt.count, 32, &encoded, length))
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// True when `password` is the one `encoded` was made from; false for another password. A hash that is not an
    /// Argon2id encoded string throws.
    public static func verify(_ password: String, encoded: String) throws(PasswordHashError) -> Bool {
        let bytes = Array(password.utf8)
        guard bytes.count <= maximumLength else { return false }
        let status = argon2id_verify(encoded, bytes, bytes.count)
        if status == ARGON2_VERIFY_MISMATCH.rawValue { return false }
        try check(status)
        return true
    }

    /// The one place a libargon2 status code becomes a Swift error, with the library's own words.
    static func check(_ status: Int32) throws(PasswordHashError) {
        guard status != ARGON2_OK.rawValue else { return }
        throw .argon2(code: Int(status), message: String(cString: argon2_error_message(status)))
    }
}

/// Why a password could not be hashed or checked.
public enum PasswordHashError: LocalizedError, Equatable {
    /// libargon2 refused (`argon2_error_message`'s words).
    case argon2(code: Int, message: String)
    /// The password is longer than `PasswordHash.maximumLength` bytes.
    case tooLong(limit: Int)

    /// For people: what failed, never the password.
    public var errorDescription: String? {
        switch self {
        case .argon2(let code, let message): "Argon2 failed: \(message) (code \(code))"
        case .tooLong(let limit): "the password is longer than \(limit) bytes: choose a shorter one"
        }
    }
}
