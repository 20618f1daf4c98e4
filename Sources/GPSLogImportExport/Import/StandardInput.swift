// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogSystem

/// `-` as a file to import or convert: standard input, copied to a private file first. Every reader then sees a
/// file: the format is told by its first bytes as a named file's is, the XML and ZIP readers (which seek) work, and
/// memory stays flat whatever the size (the copy streams, 64 KiB at a time).
public final class StandardInput {
    /// What messages call it, in place of the copy's path.
    public static let displayName = "standard input"
    /// The copy (mode 0600, in a folder of mode 0700, both removed in `deinit`).
    public let path: String
    private let folder: String

    /// Copies all of standard input (`fd`) to a private temporary file.
    /// - Throws: `ImportError.unreadable` naming standard input when it cannot be read or the copy written.
    public init(fd: Int32 = STDIN_FILENO) throws {
        folder = NSTemporaryDirectory() + "/gpslog-stdin-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        path = folder + "/stdin"
        do {
            try systemCall { mkdir(folder, 0o700) }
            let out = try systemCall { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
            defer { close(out) }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = try buffer.withUnsafeMutableBytes { b in try systemCall { read(fd, b.baseAddress, b.count) }
                }
                if count == 0 { break }
                try buffer.withUnsafeBytes { try writeAll(out, UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            }
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw ImportError.unreadable(
                file: Self.displayName, reason: (error as? SystemCallError)?.reason ?? "\(error)")
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// `error`'s message with the copy's path said as "standard input": readers name the file they read.
    public func rename(in message: String) -> String {
        message.replacingOccurrences(of: path, with: Self.displayName)
    }
}
