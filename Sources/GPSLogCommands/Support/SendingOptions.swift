// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel
import GPSLogUpload

/// How batches are sent: shared by `upload` and `record --send`.
struct SendingOptions: ParsableArguments {
    @Option(help: "Bearer token for the server (default: $GPSLOG_TOKEN). Never logged or shown.") var token: String?
    @Option(
        help: "Overland device_id for points without one; for --format owntracks, user/device (X-Limit-U, X-Limit-D).")
    var deviceID: String?
    @Option(help: "Locations per Overland batch.") var batchSize: Int = 200
    @Flag(name: .customLong("accept-2xx"), help: "Count any 2xx answer as confirmed, not only {\"result\":\"ok\"}.")
    var accept2xx = false
    @Option(help: ArgumentHelp("What to POST.", valueName: "overland|owntracks")) var format: String = "overland"
    @Option(help: "How long to wait for each answer (30s, 2m; a bare number is seconds).") var timeout =
        DurationOption(argument: "30s")!
    @Option(help: "Attempts per batch (network errors, timeouts, 5xx, 429 are retried with backoff).") var maxAttempts:
        Int = 10
    @Option(
        help: ArgumentHelp(
            "Overland's logging mode: every point in batches (with pause, resume and visit records), or only the "
                + "newest point at each send, as an Overland batch (for a URL template) or one OwnTracks message.",
            valueName: "all|latest|owntracks"))
    var loggingMode: String = LoggingMode.all.rawValue

    func validate() throws {
        _ = try resolvedToken()
        if Destination.Format(rawValue: format) == nil {
            throw ValidationError("--format must be overland or owntracks.")
        }
        if batchSize < 1 || batchSize > 10_000 { throw ValidationError("--batch-size must be from 1 to 10000.") }
        if timeout.milliseconds <= 0 { throw ValidationError("--timeout must be positive.") }
        if maxAttempts < 1 { throw ValidationError("--max-attempts must be at least 1.") }
        if LoggingMode(rawValue: loggingMode) == nil {
            throw ValidationError("--logging-mode must be all, latest or owntracks.")
        }
        if format == "owntracks", let d = deviceID, d.split(separator: "/").count != 2 {
            throw ValidationError("--device-id must be user/device for --format owntracks.")
        }
    }

    func resolvedToken() throws -> AccessToken? { try AccessToken.fromCommandLine(token) }

    func destination(url: String) throws -> Destination {
        try Destination(
            url: url, format: Destination.Format(rawValue: format) ?? .overland, token: try resolvedToken(),
            deviceID: deviceID)
    }

    var uploaderOptions: Uploader.Options {
        var o = Uploader.Options()
        o.batchSize = batchSize
        o.accept2xx = accept2xx
        o.timeout = Double(timeout.milliseconds) / 1000
        o.maxAttempts = maxAttempts
        o.loggingMode = LoggingMode(rawValue: loggingMode) ?? .all
        if let delay = ProcessInfo.processInfo.environment["GPSLOG_RETRY_DELAY"].flatMap(Double.init), delay >= 0 {
            o.firstRetryDelay = delay  // tests shorten the backoff; users need not
        }
        return o
    }
}

extension AccessToken {
    /// The token from `--token` or `$GPSLOG_TOKEN` (`serve`, `upload`, `record --send`); an empty or blank one is a
    /// usage error, never "no token".
    static func fromCommandLine(_ option: String?) throws -> AccessToken? {
        do {
            return try AccessToken.resolve(option: option, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.errorDescription ?? "bad token")
        }
    }
}
