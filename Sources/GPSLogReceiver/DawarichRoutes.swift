// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogStore
import GPSLogSystem
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The reads of Dawarich's API that its clients make (`GET /api/v1/points`, `GET /api/v1/stats`), answered from
/// gpslog's tracks in Dawarich's shapes. Its writes are the receiver's like any path, with `?api_key=` taken as the
/// token: `POST /api/v1/points` (Overland's `{"locations":[...]}`, answered as Dawarich does by `created`),
/// `/api/v1/overland/batches` and `/api/v1/owntracks/points`. The reads need a token: serve's `--token` reads every
/// session, a device's token its user's; serve without one answers 403.
enum DawarichRoutes {
    /// The paths answered here (GET only).
    static let paths: Set<String> = ["/api/v1/points", "/api/v1/stats"]
    /// Dawarich's page size when none is asked.
    static let defaultPerPage = 100

    /// Whether `request` is one of these reads.
    static func takes(_ request: Request) -> Bool {
        request.method == .get && paths.contains(request.uri.path)
    }

    /// Answers one read.
    static func handle(
        _ request: Request, context: ReceiverContext, sink: ReceiverStore, authority: DeviceAuthority, logger: Logger
    ) async -> Response {
        let client = context.remoteAddress?.ipAddress ?? "unknown"
        let what = "GET \(request.uri.path.visiblePath) from \(client.visible)"
        let identification = await authority.identify(tokens: Credentials(request).tokens)
        if let reason = BrowserGuard.crossSiteRefusal(request, tokenRequired: identification != .known(.anyone)) {
            logger.warning("refused \(what): \(reason)")
            return Receiver.json(.forbidden, Receiver.errorJSON("refused: \(reason)"))
        }
        // Whose points: serve's --token reads every session; a device token (Dawarich's api_key is a user's) its
        // user's sessions, as that user's web view login sees them.
        let owner: String?
        switch identification {
        case .known(.admin):
            owner = nil
        case .known(.anyone):
            return Receiver.json(
                .forbidden,
                Receiver.errorJSON("the Dawarich API reads need serve --token, given as ?api_key=TOKEN"))
        case .known(.device(let user, _)):
            owner = user
        case .refused(let reason):
            logger.warning("refused \(what): \(reason)")
            return Receiver.json(
                .unauthorized, #"{"error":"missing or wrong api_key: add ?api_key=TOKEN"}"#,
                extra: [(.wwwAuthenticate, #"Bearer realm="gpslog""#)])
        }
        do {
            if request.uri.path == "/api/v1/stats" {
                guard let totals = try await sink.pointTotals(owner: owner) else { return postgresOnly }
                return Receiver.json(.ok, stats(totals))
            }
            let ask = try PointsQuery(request)
            guard
                let page = try await sink.pointPage(
                    from: ask.from, to: ask.to, newestFirst: ask.newestFirst, page: ask.page, perPage: ask.perPage,
                    owner: owner)
            else { return postgresOnly }
            let pages = (page.total + ask.perPage - 1) / ask.perPage
            return Receiver.json(
                .ok, points(page),
                extra: [
                    (HTTPField.Name("X-Current-Page")!, String(ask.page)),
                    (HTTPField.Name("X-Total-Pages")!, String(pages)),
                ])
        } catch let error as ImportError {
            return Receiver.json(.unprocessableContent, Receiver.errorJSON(describeForPeople(error)))
        } catch {
            logger.error("cannot read points: \(describeForPeople(error).visible)")
            return Receiver.json(
                .serviceUnavailable, Receiver.errorJSON("cannot read now (\(describeForPeople(error)))"))
        }
    }

    static var postgresOnly: Response {
        Receiver.json(
            .notImplemented, Receiver.errorJSON("the Dawarich API reads read SQLite only: not with --store postgres://")
        )
    }

    /// `start_at`, `end_at` (ISO 8601 or seconds since 1970), `page` (from 1), `per_page` (at most
    /// `Store.largestPointPage`), `order` (`desc`, Dawarich's default, or `asc`).
    struct PointsQuery {
        var from: Timestamp?
        var to: Timestamp?
        var page = 1
        var perPage = DawarichRoutes.defaultPerPage
        var newestFirst = true

        init(_ request: Request) throws {
            let query = request.uri.queryParameters
            func bad(_ key: String, _ value: String, _ why: String) -> ImportError {
                .malformed(
                    file: "request", line: 0, reason: "\(key.visible) '\(value.prefix(60).visible)' is not valid\(why)")
            }
            func time(_ key: String) throws -> Timestamp? {
                guard let value = query.get(key), !value.isEmpty else { return nil }
                if let seconds = Int64(value) { return Timestamp(milliseconds: seconds * 1000) }
                guard let t = Timestamp(iso8601: value.prefix(64)) else { throw bad(key, value, " (not a time)") }
                return t
            }
            func whole(_ key: String, _ range: ClosedRange<Int>) throws -> Int? {
                guard let value = query.get(key), !value.isEmpty else { return nil }
                guard let n = Int(value), range.contains(n) else { throw bad(key, value, " (not in \(range))") }
                return n
            }
            from = try time("start_at")
            to = try time("end_at")
            page = try whole("page", 1...1_000_000) ?? 1
            perPage = try whole("per_page", 1...Store.largestPointPage) ?? DawarichRoutes.defaultPerPage
            switch (query.get("order") ?? "desc").lowercased() {
            case "", "desc": newestFirst = true
            case "asc": newestFirst = false
            case let other: throw bad("order", other, " (asc or desc)")
            }
        }
    }

    /// Dawarich's point objects (`Api::PointSerializer`: a Point's columns but raw_data and the ids of other
    /// tables): latitude, longitude and velocity as strings, time in seconds, battery in percent; what gpslog does not
    /// keep (country, city, geodata, the OwnTracks connection...) is null or empty. `attributes` is gpslog's: the keys
    /// an app sent that have no field (Traccar's attributes), as text.
    static func points(_ page: PointPage) -> String {
        let objects: [[String: Any]] = page.points.map { session, e -> [String: Any] in
            func value(_ v: Double?) -> Any { v.map { $0 as Any } ?? NSNull() }
            return [
                "id": e.key ?? 0, "latitude": String(e.latitude), "longitude": String(e.longitude),
                "lonlat": "POINT (\(e.longitude) \(e.latitude))",
                "timestamp": Int64((Double(e.time.milliseconds) / 1000).rounded(.down)), "altitude": value(e.altitude),
                "velocity": e.speed.map { String($0) } ?? NSNull(), "accuracy": value(e.horizontalAccuracy),
                "vertical_accuracy": value(e.verticalAccuracy), "course": value(e.course),
                "course_accuracy": value(e.courseAccuracy),
                "battery": e.batteryLevel.map { Int(($0 * 100).rounded()) } ?? NSNull(),
                "battery_status": e.batteryState?.rawValue ?? NSNull(), "tracker_id": e.deviceID ?? session,
                "ssid": e.wifi ?? NSNull(), "bssid": NSNull(), "ping": NSNull(), "topic": NSNull(),
                "trigger": NSNull(), "connection": NSNull(), "mode": NSNull(), "inrids": [String](),
                "in_regions": e.inRegions ?? [], "geodata": [String: Any](), "country_name": NSNull(),
                "city": NSNull(), "country": NSNull(), "reverse_geocoded_at": NSNull(), "track_id": NSNull(),
                "attributes": e.attributes ?? [:],
            ]
        }
        return encoded(objects)
    }

    /// Dawarich's answer to `POST /api/v1/points` (`{"data": [...]}`, 200): each point taken, with its id (the
    /// row stored, or the one already there, as Dawarich's upsert returns it: `rows`, null where the backend has no
    /// integer keys), its time in seconds and its position.
    static func created(_ entries: [Entry], rows: [Int64?]) -> String {
        encoded([
            "data": entries.enumerated().map { i, e -> [String: Any] in
                [
                    "id": (i < rows.count ? rows[i] : nil).map { $0 as Any } ?? NSNull(),
                    "timestamp": Int64((Double(e.time.milliseconds) / 1000).rounded(.down)),
                    "latitude": e.latitude, "longitude": e.longitude,
                ]
            }
        ])
    }

    static let months = [
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
        "december",
    ]

    /// Dawarich's stats (`StatsSerializer`): distances in whole kilometres by the year and month each session
    /// started in; gpslog keeps no countries or cities, so those are 0.
    static func stats(_ totals: PointTotals) -> String {
        func km(_ metres: Double) -> Int { Int(metres / 1000) }
        let years = totals.metresByYear.keys.sorted(by: >).map { year -> [String: Any] in
            let byMonth = totals.metresByMonth[year] ?? [:]
            var monthly: [String: Int] = [:]
            for (i, name) in months.enumerated() { monthly[name] = km(byMonth[i + 1] ?? 0) }
            return [
                "year": year, "totalDistanceKm": km(totals.metresByYear[year] ?? 0), "totalCountriesVisited": 0,
                "totalCitiesVisited": 0, "monthlyDistanceKm": monthly,
            ]
        }
        return encoded([
            "totalDistanceKm": km(totals.metresByYear.values.reduce(0, +)), "totalPointsTracked": totals.points,
            "totalReverseGeocodedPoints": totals.geocoded, "totalCountriesVisited": 0, "totalCitiesVisited": 0,
            "yearlyStats": years,
        ])
    }

    static func encoded(_ object: Any) -> String {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes, .sortedKeys]))
            ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
