// SPDX-License-Identifier: MIT
import Foundation
import GPSLogStore

/// The addresses a recording gives its rows as it stores them, without a request: the provider's cached answers and,
/// for an offline provider, its own. The recorder asks on its own thread and connection just before each commit, so
/// an address goes into its row's INSERT: no later transaction writes the Entries pages again to set it (each commit
/// writes every page it touches, whole: Benchmarks/README.md, "The SD card").
///
/// What it cannot answer (a cell a network provider was not asked about yet) stays NULL: that is the `GeocodeWorker`'s
/// work, off the recorder's thread, and its answers are cached for the rows that come after. It writes nothing: an
/// offline answer costs a lookup to repeat, and a cache row would cost pages in every commit that meets a new cell.
public final class ReadyAddresses {
    /// The recorder's connection (read only: the cache).
    let store: any GeocodeCacheStore
    let geocoder: any ReverseGeocoder
    let options: GeocodeWorker.Options
    /// Milliseconds since the epoch (a cached "none" expires).
    public var now: () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    /// Answers found, by cell: a track stays in a cell for many rows, and asks the cache once for all of them.
    private var known: [String: GeocodeAnswer] = [:]
    /// Cells kept in `known` at most (a recording may run for months).
    static let knownLimit = 4096
    /// What was done so far, for `status`: offline lookups count as requests.
    public private(set) var report: GeocodeReport
    /// Every cell asked about.
    public private(set) var seenCells = Set<String>()

    /// Answers from `store`'s cache and, when `geocoder` is offline, from the geocoder itself; writes nothing.
    public init(store: any GeocodeCacheStore, geocoder: any ReverseGeocoder, options: GeocodeWorker.Options) {
        self.store = store
        self.geocoder = geocoder
        self.options = options
        report = GeocodeReport(provider: geocoder.cacheKey)
    }

    /// The address for a row about to be stored, if one is at hand; nil when the place has none, the cache does not
    /// know it yet, or the lookup failed (the row stays for the geocoder, or `gpslog geocode`).
    public func address(latitude: Double, longitude: Double, marked: Bool) -> String? {
        let cell = GeocodeWorker.cell(latitude: latitude, longitude: longitude, marked: marked, options: options)
        if seenCells.insert(cell).inserted { report.cells = seenCells.count }
        guard let answer = known[cell] ?? answer(cell: cell, latitude: latitude, longitude: longitude) else {
            return nil
        }
        guard case .address(let address) = answer else { return nil }
        report.addressed += 1
        return address
    }

    /// Asks the cache, then an offline provider; remembers what it found.
    private func answer(cell: String, latitude: Double, longitude: Double) -> GeocodeAnswer? {
        var answer: GeocodeAnswer?
        do {
            answer = try GeocodeWorker.cachedAnswer(
                in: store, provider: geocoder.cacheKey, options: options, cell: cell, now: now())
            if answer != nil {
                report.cacheHits += 1
            } else if let offline = geocoder as? any OfflineGeocoder {
                report.requests += 1
                answer = try offline.answer(latitude: latitude, longitude: longitude, language: options.language)
            }
        } catch {
            report.failures += 1
            return nil
        }
        guard let answer else { return nil }
        if case .none = answer { report.negatives += 1 }
        if known.count >= Self.knownLimit { known.removeAll(keepingCapacity: true) }
        known[cell] = answer
        return answer
    }
}

@available(*, unavailable)
extension ReadyAddresses: Sendable {}
