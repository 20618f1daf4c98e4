// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// What `--help` says, for every subcommand.
@Suite(.ownThreads)
struct HelpTextTests {
    @Test func defaultsReadAsUsersWriteThem() async throws {
        try await withTemporaryDirectory { dir in
            let subcommands = try await listedSubcommands(folder: dir)
            #expect(subcommands.count >= 15)
            for subcommand in subcommands {
                // Unwrapped, so a default split over two lines is read whole.
                let text = try await runGPSLogAsync([subcommand, "--help"], folder: dir).stdout.split(
                    whereSeparator: \.isWhitespace
                )
                .joined(separator: " ")
                #expect(!text.contains(".0)"), "gpslog \(subcommand) --help shows a default as a Double: \(text)")
                #expect(!text.contains("Option("), "gpslog \(subcommand) --help shows a default as a type")
            }
            let record = try await runGPSLogAsync(["record", "--help"], folder: dir).stdout.split(
                whereSeparator: \.isWhitespace
            )
            .joined(separator: " ")
            for shown in ["(default: 1s)", "(default: 30s)", "heading-change entry. (default: 5)", "(default: 3)"] {
                #expect(record.contains(shown), "record --help lacks \(shown)")
            }
        }
    }
}
