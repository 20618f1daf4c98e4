// SPDX-License-Identifier: MIT
import GPSLogModel
import Logging

enum LogSetup {
    /// A logger that writes to stderr (stdout stays for data), systemd-friendly: one line per event, with every
    /// control character of the message and metadata escaped (a device id holding "\n" cannot forge a line).
    static func makeStderrLogger(label: String, verbose: Bool) -> Logger {
        var logger = Logger(label: label) { EscapingLogHandler(StreamLogHandler.standardError(label: $0)) }
        logger.logLevel = verbose ? .debug : .info
        return logger
    }
}

/// Escapes what a log event carries (see `StringProtocol.visible`), then hands it to another handler.
struct EscapingLogHandler: LogHandler {
    var inner: any LogHandler

    init(_ inner: any LogHandler) { self.inner = inner }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = "\(event.message.description.visible)"
        event.metadata = event.metadata?.reduce(into: [:]) {
            $0[$1.key.visible] = .string($1.value.description.visible)
        }
        inner.log(event: event)
    }
}

/// Every line the commands print goes through here: control characters other than line feeds and tabs are escaped,
/// so nothing from outside (a name, a label, an answer) reaches the terminal raw. Values that could hold a line feed
/// are escaped with `visible` where they are put into text. JSON output keeps its meaning: the escapes are JSON's.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Swift.print(items.map { "\($0)" }.joined(separator: separator).visibleKeepingLines, terminator: terminator)
}
