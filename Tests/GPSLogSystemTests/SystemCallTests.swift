// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSystem
import Testing

struct SystemCallTests {
    /// An interrupted call is made again; any other failure is thrown with errno and strerror's words.
    @Test func interruptedCallsAreRetriedAndFailuresCarryTheirReason() throws {
        var attempts = 0
        let result = try systemCall { () -> Int32 in
            attempts += 1
            if attempts < 3 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(result == 7 && attempts == 3)
        let missing = #expect(throws: SystemCallError.self) { try systemCall { open("/nonexistent/gpslog", O_RDONLY) } }
        #expect(missing?.code == ENOENT && missing?.reason == "No such file or directory")
    }

    /// writeAll puts every byte in place, appended or at an offset.
    @Test func writeAllWritesEveryByteAppendedOrAtAnOffset() throws {
        let path = NSTemporaryDirectory() + "/gpslog-syscall-\(UUID().uuidString)"
        defer { unlink(path) }
        let fd = try systemCall { open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600) }
        defer { close(fd) }
        let bytes = [UInt8](repeating: 0x61, count: 200_000)
        try bytes.withUnsafeBytes { try writeAll(fd, $0) }
        try Array("XYZ".utf8).withUnsafeBytes { try writeAll(fd, $0, at: 10) }
        let back = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(back.count == 200_000 && back[10] == 0x58 && back[12] == 0x5A && back[13] == 0x61)
        #expect(throws: SystemCallError.self) { try bytes.withUnsafeBytes { try writeAll(-1, $0) } }
    }
}
