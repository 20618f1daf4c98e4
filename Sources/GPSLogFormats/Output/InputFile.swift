// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSystem

/// A file read in chunks by the streaming readers (JSON, CSV): opened read-only, each failure an
/// `ImportError.unreadable` naming the file with the system's words.
struct InputFile {
    let path: String
    let descriptor: Int32

    init(_ path: String) throws {
        self.path = path
        do {
            descriptor = try systemCall { open(path, O_RDONLY | O_CLOEXEC) }
        } catch {
            throw ImportError.unreadable(file: path, reason: error.reason)
        }
    }

    /// Reads up to `buffer.count` bytes into `buffer` from its start; 0 at the end of the file.
    func read(into buffer: inout [UInt8]) throws -> Int {
        let fd = descriptor
        return try buffer.withUnsafeMutableBytes { b throws(ImportError) in
            do throws(SystemCallError) {
                return try systemCall { Glibc.read(fd, b.baseAddress, b.count) }
            } catch {
                throw ImportError.unreadable(file: path, reason: error.reason)
            }
        }
    }

    func close() { Glibc.close(descriptor) }

    /// Why a UTF-16 JSON or CSV file is refused (spreadsheets save "Unicode text" so), and what to do.
    static let utf16Refusal =
        "the file is UTF-16; JSON and CSV are read as UTF-8 (convert it: iconv -f UTF-16 -t UTF-8 FILE > NEW)"
}
