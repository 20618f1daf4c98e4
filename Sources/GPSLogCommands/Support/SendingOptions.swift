// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogConfig
import GPSLogModel
import GPSLogUpload

/// How batches are sent: shared by `upload` and `record --send`.
struct SendingOptions: ParsableArguments {
    @Option(help: "Bearer token for the server (default: $GPSLOG_TOKEN). Never logged or shown.") var token: String?
    @Option(help: ArgumentHelp("File holding the token (one trailing newline is ignored).", valueName: "path"))
    var tokenFile: String?
    @Option(
        help:
            "Overland device_id for points without one; for --format owntracks, user/device (X-Limit-U, X-Limit-D); for MQTT, user/device (topic owntracks/user/device); for osmand://, the device's identifier in Traccar (default: the host name)."
    )
    var deviceID: String?
    @Option(help: "Locations per Overland batch.") var batchSize: Int = 200
    @Flag(name: .customLong("accept-2xx"), help: "Count any 2xx answer as confirmed, not only {\"result\":\"ok\"}.")
    var accept2xx = false
    @Option(
        help: ArgumentHelp(
            "What to send: Overland batches, OwnTracks messages, or OsmAnd locations (Traccar; an osmand:// URL "
                + "chooses it).", valueName: "overland|owntracks|osmand"))
    var format: String = "overland"
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
    @Flag(help: "Send Overland's unique_id: a random id made once, kept in $XDG_CONFIG_HOME/gpslog/unique-id.")
    var uniqueID = false
    @OptionGroup(title: "MQTT (a URL mqtt://HOST[:PORT] or mqtts://...)") var mqtt: MQTTPublishOptions

    func validate() throws {
        guard !OptionChecks.deferred else { return }  // run once the config settings are applied
        _ = try resolvedToken()
        if Destination.Format(rawValue: format) == nil {
            throw ValidationError("--format must be overland, owntracks or osmand.")
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

    func resolvedToken() throws -> AccessToken? { try AccessToken.fromCommandLine(token, file: tokenFile) }

    func destination(url: String) throws -> Destination {
        var destination = try Destination(
            url: url, format: Destination.Format(rawValue: format) ?? .overland, token: try resolvedToken(),
            deviceID: deviceID)
        if uniqueID {
            let folder = ConfigLocations(explicit: nil, environment: ProcessInfo.processInfo.environment).userDirectory
            destination.uniqueID = try PrivateFiles.uniqueID(in: folder)
        }
        return destination
    }

    /// Where to publish, when `url` is an MQTT broker; nil for an HTTP server.
    func mqttDestination(url: String) throws -> MQTTDestination? {
        guard MQTTPublishOptions.isMQTT(url) else { return nil }
        do { return try mqtt.destination(url: url, deviceID: deviceID) } catch let e as MQTTSendError {
            throw ValidationError(e.errorDescription ?? "\(e)")
        }
    }

    var publisherOptions: MQTTPublisher.Options {
        var o = MQTTPublisher.Options()
        o.batchSize = batchSize
        o.timeout = Double(timeout.milliseconds) / 1000
        o.rate = mqtt.rate
        return o
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
    /// The token from `--token`, `--token-file` or `$GPSLOG_TOKEN` (`serve`, `upload`, `record --send`); an empty
    /// or blank one is a usage error, never "no token". A token file others may read gets a warning.
    static func fromCommandLine(_ option: String?, file: String? = nil) throws -> AccessToken? {
        if let file {
            guard option == nil else { throw ValidationError("Give --token or --token-file, not both.") }
            if PrivateFiles.isReadableByOthers(file) { TokenFileWarning.once(file) }
            do { return try PrivateFiles.token(at: file) } catch {
                throw ValidationError(error.errorDescription ?? "bad --token-file")
            }
        }
        do {
            return try AccessToken.resolve(option: option, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.errorDescription ?? "bad token")
        }
    }
}

/// Warns once per run that a token file is readable by others (validation runs more than once).
enum TokenFileWarning {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var warned: Set<String> = []

    static func once(_ path: String) {
        guard lock.withLock({ warned.insert(path).inserted }) else { return }
        FileHandle.standardError.write(
            Data("warning: \(path.visible) can be read by other users: chmod 600 it.\n".utf8))
    }
}
