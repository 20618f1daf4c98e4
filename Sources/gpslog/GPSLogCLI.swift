// SPDX-License-Identifier: MIT
import Foundation
import GPSLogCommands

/// The executable: everything lives in GPSLogCommands, where it can be tested.
@main
enum GPSLogCLI {
    static func main() async {
        // GPSLOG_PARSE_ONLY=1: parse the command line and run nothing (.ci/check-docs checks the docs' examples).
        if ProcessInfo.processInfo.environment["GPSLOG_PARSE_ONLY"] == "1" {
            do {
                _ = try GPSLog.parseAsRoot(Array(CommandLine.arguments.dropFirst()))
                exit(0)
            } catch {
                // --help and --version are parses that succeed.
                guard GPSLog.exitCode(for: error) != .success else { exit(0) }
                FileHandle.standardError.write(Data((GPSLog.message(for: error) + "\n").utf8))
                exit(64)
            }
        }
        await GPSLog.main()
    }
}
