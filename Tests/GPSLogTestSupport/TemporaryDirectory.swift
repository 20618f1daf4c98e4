// SPDX-License-Identifier: MIT
import Foundation

/// A folder under the system temporary directory, removed when `body` returns.
public func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let path = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// Async variant of `withTemporaryDirectory`.
public func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// Creates a fresh, empty folder and returns its path.
public func makeTemporaryDirectory() throws -> String {
    var template = Array((NSTemporaryDirectory() + "/gpslog-test-XXXXXX").utf8CString)
    guard let result = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        throw POSIXError(.init(rawValue: errno) ?? .EIO)
    }
    return String(cString: result)
}
