// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Logging
import Testing

@testable import GPSLogRecording

/// The recorder's messages name what went wrong in words, not as a dump of a library's error value.
@Suite(.ownThreads)
struct RecordingMessageTests {
    /// A control socket that cannot be made (its folder is a plain file): the reason reads as the system says it, not
    /// as NIO's `bind(descriptor:ptr:bytes:): ... (errno: 20)`.
    @Test func aControlSocketThatCannotBeMadeSaysWhyInWords() async throws {
        try await withTemporaryDirectory { dir in
            let file = dir + "/plain-file"
            try Data("not a folder".utf8).write(to: URL(fileURLWithPath: file))
            let path = file + "/control.sock"
            do {
                let server = try await ControlServer.start(path: path, logger: Logger(label: "test")) { _ in
                    ControlResponse(ok: true)
                }
                await server.close()
                Issue.record("a socket under a plain file was bound")
            } catch {
                let message = (error as? LocalizedError)?.errorDescription ?? ""
                #expect(message.contains(path) && message.contains("not a directory"), "\(message)")
                #expect(isPlainForPeople(message), "\(message)")
                #expect(!message.contains("errno") && !message.contains("descriptor"), "\(message)")
            }
        }
    }
}
