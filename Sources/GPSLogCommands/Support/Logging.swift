// SPDX-License-Identifier: MIT
import Logging

enum LogSetup {
    /// A logger that writes to stderr (stdout stays for data), systemd-friendly: one line per event.
    static func makeStderrLogger(label: String, verbose: Bool) -> Logger {
        var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .debug : .info
        return logger
    }
}
