// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogModel
import GPSLogRecording
import GPSLogStore
import GPSLogUpload

extension GPSLog {
    /// Sends sessions to an Overland-compatible server (or an OwnTracks HTTP endpoint), resuming where it stopped.
    struct Upload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Upload sessions as Overland batches (or OwnTracks messages), resuming after the last confirmed batch.",
            discussion: """
                A batch counts as sent only when the server answers {"result":"ok"} (any 2xx with --accept-2xx; \
                any 2xx for OwnTracks and OsmAnd, one location per request). What each server confirmed is kept per session in the database, so a re-run, \
                or a run after a crash, goes on after the last confirmed batch. Network errors, timeouts, 5xx and 429 \
                are retried with backoff; another 4xx stops with the server's message. The URL may hold Overland's \
                parameters %TS %LAT %LON %SPD %ACC %ALT %BAT, replaced from the latest point.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "Sessions to upload.") var sessions: [String]
        @Option(
            help:
                "The server's endpoint (required), e.g. https://example.org/api/overland or http://127.0.0.1:8080/, a Traccar server's OsmAnd port, osmand://HOST[:5055] (osmands:// for HTTPS), or an MQTT broker, mqtt://HOST:1883 (with --device-id user/device)."
        )
        var url: String?  // optional to the parser so that a config file may give it; `validate()` requires it
        @OptionGroup var sending: SendingOptions
        @Flag(help: "Print the summary as JSON.") var json = false

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            let url = try OptionChecks.required(self.url, "--url <url>")
            if sessions.isEmpty { throw ValidationError("Name at least one session (see `gpslog sessions`).") }
            _ = try sending.mqttDestination(url: url)
        }

        func run() async throws {
            let url = try OptionChecks.required(self.url, "--url <url>")
            let store = try global.openStore()
            defer { store.close() }
            let resolved = try sessions.map { try store.resolveSession($0) }
            if let destination = try sending.mqttDestination(url: url) {
                return try await publish(resolved, to: destination, store: store)
            }
            let client = SendingClient()
            let uploader = Uploader(
                store: store, destination: try sending.destination(url: url), options: sending.uploaderOptions,
                client: client)
            var reports: [UploadReport] = []
            for session in resolved {
                let bar = ProgressBar(label: "Uploading '\(session.name)'")
                var shown = 0
                let report: UploadReport
                do {
                    report = try await uploader.upload(session: session) { done, total in
                        bar.total = total
                        bar.advance(by: done - shown)
                        shown = done
                    }
                } catch {
                    bar.finish()
                    throw error
                }
                bar.finish()
                reports.append(report)
                let kept = ServerSettingsFilter.keepable(report.settings)
                if !report.settings.isEmpty {
                    try store.saveServerSettings(
                        kept, destination: uploader.destination.progressKey,
                        at: Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000)))
                    let said = report.settings.map { "\($0.path) \($0.value.visible)" }.joined(separator: ", ")
                    FileHandle.standardError.write(
                        Data(
                            "\(report.destination) set \(said); \(kept.count) kept for the next `record --send` to it\n"
                                .utf8))
                }
                if !json {
                    var line =
                        "Uploaded '\(session.name)' to \(report.destination): \(counted(report.sent, "point")) in \(counted(report.batches, "batch", "batches"))"
                    if report.alreadySent > 0 { line += " (\(report.alreadySent) confirmed before)" }
                    if report.records > 0 { line += ", \(counted(report.records, "record"))" }
                    if report.skipped > 0 { line += ", \(report.skipped) older points passed over (--logging-mode)" }
                    if report.retries > 0 { line += ", \(report.retries) retries" }
                    print(line + ".")
                }
            }
            await client.shutdown()
            if json { print(try JSONOutput.render(reports)) }
        }

        /// `--url mqtt://`: publishes the regions (waypoints), then the sessions, as an OwnTracks app would have, and
        /// waits for the broker's confirmations; a broker that refuses the login or cannot be reached is an error before anything goes.
        func publish(_ sessions: [Session], to destination: MQTTDestination, store: Store) async throws {
            let link = try MQTTLink(destination: destination, oneShot: true)
            try link.connect(timeout: Double(sending.timeout.milliseconds) / 1000)
            defer { link.close() }
            let publisher = MQTTPublisher(store: store, link: link, options: sending.publisherOptions)
            // The regions first, as `record --send` publishes them: a subscriber (the OwnTracks Recorder) then knows
            // each region the transitions name.
            let regions = try MQTTPublisher.waypoints(regions: store.regions(), sessions: sessions, store: store)
            if !regions.isEmpty {
                try await publisher.publishWaypoints(regions)
                if !json {
                    print("Published \(counted(regions.count, "region")) (waypoints) to \(destination.displayURL).")
                }
            }
            var reports: [UploadReport] = []
            for session in sessions {
                let bar = ProgressBar(label: "Publishing '\(session.name)'")
                var shown = 0
                defer { bar.finish() }
                let report = try await publisher.publish(session: session) { done, total in
                    bar.total = total
                    bar.advance(by: done - shown)
                    shown = done
                }
                reports.append(report)
                if !json {
                    var line =
                        "Published '\(session.name.visible)' to \(report.destination): \(counted(report.sent, "location")) in \(counted(report.batches, "batch", "batches"))"
                    if report.alreadySent > 0 { line += " (\(report.alreadySent) confirmed before)" }
                    if report.records > 0 { line += ", \(counted(report.records, "transition"))" }
                    print(line + ".")
                }
            }
            if json { print(try JSONOutput.render(reports)) }
        }
    }
}
