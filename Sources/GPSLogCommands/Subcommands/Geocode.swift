// SPDX-License-Identifier: MIT
import ArgumentParser
import AsyncHTTPClient
import Foundation
import GPSLogGeocoding
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// Fills in addresses after the fact.
    struct Geocode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Reverse-geocode entries without an address, within the provider's rate limit, with a cache.",
            discussion: """
                Providers: places:world (the default, offline: the nearest town anywhere, from GeoNames' cities \
                installed with gpslog; see `gpslog places`), places:PATH (an index `gpslog places build` wrote), \
                regions:PATH (named GeoJSON polygons, offline; regions:demo is a small example shipped for the \
                demo), geonames:PATH (nearest place from GeoNames' cities1000.txt, offline), nominatim:URL and \
                photon:URL (your own server at 1/s by default; the public servers are opt-in and limited). Entries \
                are grouped by geohash cell (precision 7, about 150 m) and each cell is asked once; marks are asked \
                at their exact point. Answers are cached; a 429 pauses the provider, a 403 blocks it until --reset.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "Sessions (default: --all).") var sessions: [String] = []
        @Flag(help: "Every session.") var all = false
        @Option(help: "Provider.") var provider: String = GeocoderSpec.defaultProvider
        @Option(
            help:
                "Requests per time: 1/s, 4/min, 1/min (default: 4/min for the public Nominatim, 1/s for other servers)."
        )
        var rate: String?
        @Option(help: "Contact (e-mail or URL) for the User-Agent; required by the public Nominatim.") var contact:
            String?
        @Option(help: "Language of the addresses (accept-language).") var language: String = "en"
        @Option(
            help: "Geohash precision of a cache cell: 7 (~150 m, street), 6 (~1 km, neighbourhood), 5 (~5 km, town).")
        var precision: Int = 7
        @Flag(help: "Lift a 403 block or a pause of the provider, then go on.") var reset = false
        @Flag(help: "Print the summary as JSON.") var json = false

        func validate() throws {
            guard !OptionChecks.deferred else { return }  // run once the config settings are applied
            if rate.map({ GeocodeRate($0) == nil }) == true {
                throw ValidationError("--rate must look like 1/s, 4/min or 1/min.")
            }
            if ![5, 6, 7].contains(precision) { throw ValidationError("--precision must be 5, 6 or 7.") }
            if !sessions.isEmpty && all { throw ValidationError("Name sessions or --all, not both.") }
        }

        func run() async throws {
            let store = try global.openStore()
            defer { store.close() }
            let ids: [String]? = sessions.isEmpty ? nil : try sessions.map { try store.resolveSession($0).id }
            // The shared client: it lives as long as the process, so there is nothing to shut down.
            let client = HTTPClient.shared
            let made = try GeocoderSpec(provider).make(contact: contact, precision: precision, client: client)
            if let notice = made.notice { FileHandle.standardError.write(Data((notice + "\n").utf8)) }
            var options = GeocodeWorker.Options()
            options.language = language
            options.precision = precision
            options.rate = try made.rate(requested: rate.flatMap(GeocodeRate.init))
            let worker = GeocodeWorker(store: store, geocoder: made.geocoder, options: options)
            if reset { try worker.reset() }
            let progress = ProgressBar(label: "Geocoding")
            var last = 0
            var failuresSaid = false
            let report = try await worker.run(
                sessions: ids,
                progress: { done, _ in
                    progress.advance(by: done - last)
                    last = done
                },
                onFailure: { reason in
                    // The first failure at once, not after a long silence; the summary counts the rest.
                    guard !failuresSaid else { return }
                    failuresSaid = true
                    progress.finish()
                    FileHandle.standardError.write(
                        Data("warning: a request to \(made.geocoder.cacheKey) failed: \(reason.visible)\n".utf8))
                })
            progress.finish()
            if json {
                print(try JSONOutput.render(report))
            } else {
                var line =
                    "Geocoded with \(made.geocoder.cacheKey): \(counted(report.addressed, "entry", "entries")) addressed; \(counted(report.cells, "cell")), "
                line +=
                    "\(counted(report.requests, "request")), \(counted(report.cacheHits, "cache hit")), \(report.negatives) without an address, \(counted(report.failures, "failure"))"
                if let r = report.requestsPerUncachedCell {
                    line += String(format: ", %.2f requests per uncached cell", r)
                }
                print(line + ".")
            }
            // Every request failed (the provider is unreachable): nothing was geocoded, and the exit says so.
            if report.failures > 0, report.failures == report.requests, report.addressed == 0 {
                throw CommandError.refused(
                    "every request to \(made.geocoder.cacheKey) failed (\(counted(report.failures, "failure"))): "
                        + "nothing was geocoded; check the provider's URL and the network, then run it again.")
            }
            if let blocked = report.blocked {
                throw CommandError.refused(
                    "\(made.geocoder.cacheKey) is blocked (\(blocked)); fix the cause (a contact in --contact, your own server), then run with --reset."
                )
            }
            if let until = report.pausedUntil {
                FileHandle.standardError.write(
                    Data(
                        "\(made.geocoder.cacheKey) asked us to slow down (HTTP 429/503): paused until \(until); run again after that.\n"
                            .utf8))
            }
        }
    }
}
