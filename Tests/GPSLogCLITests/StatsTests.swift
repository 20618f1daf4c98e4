// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSQLite
import GPSLogTestSupport
import Testing

/// `gpslog stats` and the web view's /stats, end to end with the real binary: the kept per-day figures agree with the
/// sessions' lengths through imports, deletes and points posted out of order, `check` finds and repairs a row
/// corrupted by hand, a flight does not count the country it flies over, and each user sees only their own figures.
@Suite(.ownThreads) struct StatsTests {
    /// A track from (50, `fromLon`) east along latitude 50 at `kmh`, a point every `every` seconds, from `start`.
    static func eastward(name: String, start: String, fromLon: Double, toLon: Double, kmh: Double, every: Double)
        -> String
    {
        let metresPerDegree = 111_195 * cos(50 * Double.pi / 180)
        let seconds = (toLon - fromLon) * metresPerDegree / (kmh / 3.6)
        let t0 = ISO8601DateFormatter().date(from: start)!
        let count = Int(seconds / every)
        let points = (0...count).map { i -> String in
            let lon = fromLon + (toLon - fromLon) * Double(i) / Double(count)
            let time = ISO8601DateFormatter().string(from: t0.addingTimeInterval(Double(i) * seconds / Double(count)))
            return #"<trkpt lat="50.0" lon="\#(String(format: "%.6f", lon))"><time>\#(time)</time></trkpt>"#
        }
        return PlotCommandTests.gpx(
            "<trk><name>\(name)</name><trkseg>\n" + points.joined(separator: "\n") + "\n</trkseg></trk>")
    }

    /// A places index along latitude 50: NL at longitudes 0-2, BE at 3-5, LU at 6-8 (made-up places, one a degree).
    static func placesIndex(in dir: String) throws -> String {
        var csv = "lat,lon,name,admin1,admin2,cc\n"
        for lon in 0...8 {
            let cc = lon < 3 ? "NL" : lon < 6 ? "BE" : "LU"
            csv += "50.0,\(lon).0,Town\(lon),Region,,\(cc)\n"
        }
        try csv.write(toFile: dir + "/places.csv", atomically: true, encoding: .utf8)
        let r = try runGPSLog(["places", "build", dir + "/places.csv", "-o", dir + "/places.bin"])
        try #require(r.status == 0, "\(r.stderr)")
        return dir + "/places.bin"
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    static func stats(_ db: String, _ dir: String, _ extra: [String] = [], places: String? = nil) async throws
        -> [String: Any]
    {
        let r = try await runGPSLogAsync(
            ["stats", "--json"] + extra, database: db, environment: places.map { ["GPSLOG_PLACES": $0] } ?? [:],
            folder: dir)
        try #require(r.status == 0, "\(r.stderr)")
        return try json(r.stdout)
    }

    /// Each session's length as `sessions --json` gives it, by id.
    static func lengths(_ db: String, _ dir: String) async throws -> [String: Double] {
        let r = try await runGPSLogAsync(["sessions", "--json"], database: db, folder: dir)
        try #require(r.status == 0, "\(r.stderr)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        var lengths: [String: Double] = [:]
        for s in list { lengths[s["id"] as? String ?? ""] = s["distanceMeters"] as? Double }
        return lengths
    }

    /// The id of the session named `name`.
    static func id(of name: String, _ db: String, _ dir: String) async throws -> String {
        let r = try await runGPSLogAsync(["sessions", "--json"], database: db, folder: dir)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        return try #require(list.first { $0["name"] as? String == name }?["id"] as? String, "\(r.stdout)")
    }

    /// The days' distances add up to the sessions' lengths (`sessions --json` gives them to 0.1 m; `check` compares
    /// the kept nanometres with a recount exactly).
    static func expectDaysAddUp(_ db: String, _ dir: String, _ when: String) async throws {
        let stats = try await Self.stats(db, dir)
        let days = try #require(stats["days"] as? [[String: Any]])
        let sum = days.reduce(0.0) { $0 + ($1["distanceMetres"] as? Double ?? .nan) }
        let lengths = try await Self.lengths(db, dir)
        let total = lengths.values.reduce(0, +)
        let rounding = 0.05 * Double(lengths.count) + 1e-6
        #expect(abs(sum - total) <= rounding, "\(when): days \(sum) m, sessions \(total) m")
        #expect(abs((stats["distanceMetres"] as? Double ?? .nan) - total) <= rounding, "\(when)")
        for trip in stats["longestTrips"] as? [[String: Any]] ?? [] {
            let id = trip["session"] as? String ?? ""
            #expect(
                abs((trip["distanceMetres"] as? Double ?? .nan) - (lengths[id] ?? .nan)) <= 0.05 + 1e-6,
                "\(when): \(id)")
        }
        let check = try await runGPSLogAsync(["check"], database: db, folder: dir)
        #expect(check.status == 0 && check.stdout.contains("every kept figure was right"), "\(when): \(check.stdout)")
    }

    @Test(.timeLimit(.minutes(10)))
    func theDaysAddUpToTheSessionsThroughImportsDeletesSplitsMergesAndARepair() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let sample = try await runGPSLogAsync(["import", "--sample"], database: db, folder: dir)
            try #require(sample.status == 0, "\(sample.stderr)")
            // Across midnight: the steps of two days.
            let drive = Self.eastward(
                name: "Night drive", start: "2024-06-01T23:00:00Z", fromLon: 2.5, toLon: 5.5, kmh: 80, every: 30)
            try drive.write(toFile: dir + "/drive.gpx", atomically: true, encoding: .utf8)
            let imported = try await runGPSLogAsync(["import", dir + "/drive.gpx"], database: db, folder: dir)
            try #require(imported.status == 0, "\(imported.stderr)")
            try await Self.expectDaysAddUp(db, dir, "after the imports")

            let year = try await Self.stats(db, dir, ["--year", "2024"])
            let days = try #require(year["days"] as? [[String: Any]])
            #expect(days.map { $0["period"] as? String } == ["2024-06-01", "2024-06-02"], "\(days)")
            // Every step moved (22 m/s, 30 s each): the time moving is the drive's whole duration.
            let lengths = try await Self.lengths(db, dir)
            let driveID = try await Self.id(of: "Night drive", db, dir)
            let moving = try #require(year["movingSeconds"] as? Double)
            #expect(abs(moving - 3 * 111_195 * cos(50 * Double.pi / 180) / (80 / 3.6)) < 2, "\(moving) s")
            #expect(abs((year["distanceMetres"] as? Double ?? 0) - (lengths[driveID] ?? -1)) <= 0.05 + 1e-6)

            // Entries deleted from the middle of the drive: the kept rows follow.
            let deleted = try await runGPSLogAsync(
                ["delete", "Night drive", "--from", "2024-06-01T23:50:00Z", "--to", "2024-06-02T00:20:00Z", "--yes"],
                database: db, folder: dir)
            try #require(deleted.status == 0, "\(deleted.stderr)")
            let shorter = try await Self.lengths(db, dir)
            #expect((shorter[driveID] ?? 0) < (lengths[driveID] ?? 0))
            try await Self.expectDaysAddUp(db, dir, "after the delete")

            // Split at midnight and merged back: each session's days follow its entries.
            let split = try await runGPSLogAsync(
                ["split", "Night drive", "--at", "2024-06-02T00:00:00Z", "--name", "Morning"], database: db,
                folder: dir)
            try #require(split.status == 0, "\(split.stderr)")
            let halves = try await Self.stats(db, dir, ["--year", "2024"])
            #expect((halves["longestTrips"] as? [[String: Any]])?.count == 2, "\(halves)")
            try await Self.expectDaysAddUp(db, dir, "after the split")
            let merged = try await runGPSLogAsync(["merge", "Night drive", "Morning"], database: db, folder: dir)
            try #require(merged.status == 0, "\(merged.stderr)")
            try await Self.expectDaysAddUp(db, dir, "after the merge")

            let right = try await Self.stats(db, dir, ["--year", "2024"])
            // A row corrupted by hand: check names the day, repairs it, and the next check finds all right.
            let database = try Database(path: db)
            try database.run(
                "UPDATE DaySummaries SET LengthNanometres = LengthNanometres + 5000000000 WHERE Day = 19876")
            try database.run("DELETE FROM DayCells WHERE Day = 19875")
            database.close()
            let corrupt = try await Self.stats(db, dir, ["--year", "2024"])
            let (wrong, before) = (corrupt["distanceMetres"] as? Double ?? 0, right["distanceMetres"] as? Double ?? 0)
            #expect(abs(wrong - before - 5) < 1e-6, "\(wrong) m, \(before) m before")
            let check = try await runGPSLogAsync(["check"], database: db, folder: dir)
            #expect(check.status == 0, "\(check.stderr)")
            #expect(
                check.stdout.contains("DaySummaries day 2024-06-01, DaySummaries day 2024-06-02 differed"),
                "\(check.stdout)")
            try await Self.expectDaysAddUp(db, dir, "after the repair")

            // The human table.
            let table = try await runGPSLogAsync(["stats", "--by", "day"], database: db, folder: dir)
            #expect(table.status == 0, "\(table.stderr)")
            #expect(table.stdout.contains("2024-06-02  none"), "\(table.stdout)")
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func aFlightDoesNotCountTheCountryItFliesOver() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/gpslog.sqlite"
            let places = try Self.placesIndex(in: dir)
            let flight = Self.eastward(
                name: "Flight", start: "2024-07-01T08:00:00Z", fromLon: 0, toLon: 8, kmh: 800, every: 10)
            try flight.write(toFile: dir + "/flight.gpx", atomically: true, encoding: .utf8)
            let r = try await runGPSLogAsync(["import", dir + "/flight.gpx"], database: db, folder: dir)
            try #require(r.status == 0, "\(r.stderr)")
            let afterFlight = try await Self.stats(db, dir, places: places)
            let countries = { (s: [String: Any]) in
                (s["countries"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            }
            // Where it took off counts; the countries below it do not.
            #expect(countries(afterFlight) == ["NL"], "\(afterFlight)")
            #expect(afterFlight["placesKnown"] as? Bool == true)

            let drive = Self.eastward(
                name: "Drive", start: "2024-07-02T08:00:00Z", fromLon: 2.2, toLon: 4.8, kmh: 80, every: 30)
            try drive.write(toFile: dir + "/drive.gpx", atomically: true, encoding: .utf8)
            let d = try await runGPSLogAsync(["import", dir + "/drive.gpx"], database: db, folder: dir)
            try #require(d.status == 0, "\(d.stderr)")
            let afterDrive = try await Self.stats(db, dir, places: places)
            #expect(Set(countries(afterDrive)) == ["NL", "BE"], "\(afterDrive)")
            let nl = (afterDrive["countries"] as? [[String: Any]])?.first { $0["name"] as? String == "NL" }
            #expect(nl?["days"] as? Int == 2, "NL on the flight's day and the drive's: \(afterDrive)")
            let towns = (afterDrive["towns"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(towns.contains("Town4, BE") && !towns.contains("Town6, LU"), "\(towns)")

            // Without the places index: the distances, and a note that countries are missing.
            let bare = try await runGPSLogAsync(
                ["stats"], database: db, environment: ["GPSLOG_PLACES": dir + "/none.bin"], folder: dir)
            #expect(bare.status == 0 && bare.stderr.contains("no countries or towns"), "\(bare.stderr)")
        }
    }

    /// An Overland batch of one location.
    static func overland(_ time: String, lon: Double) -> String {
        #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(lon),50.0]},"#
            + #""properties":{"timestamp":"\#(time)","device_id":"phone"}}]}"#
    }

    @Test(.timeLimit(.minutes(10)))
    func eachUserSeesOnlyTheirOwnFiguresAndAShareLinkNone() async throws {
        try await withTemporaryDirectory { dir in
            let db = dir + "/serve.sqlite"
            try await ViewAccountsTests.addUser("alice", "alice's secret", db: db, dir: dir)
            try await ViewAccountsTests.addUser("bob", "bob's secret", db: db, dir: dir)
            let phones = [
                "alice": try await AccountsTests.addDevice("alice/phone", db: db, folder: dir),
                "bob": try await AccountsTests.addDevice("bob/phone", db: db, folder: dir),
            ]
            let (serve, port) = try await LoopbackHTTP.serve([], database: db, folder: dir + "/serve")
            defer { AccountsTests.stop(serve) }
            // Alice's third point arrives late, between the first two: written into the middle of her track.
            let posts = [
                ("alice", "2024-05-01T10:00:00Z", 3.0), ("alice", "2024-05-01T10:02:00Z", 3.02),
                ("alice", "2024-05-01T10:01:00Z", 3.015), ("bob", "2024-05-01T11:00:00Z", 6.0),
                ("bob", "2024-05-01T11:01:00Z", 6.01),
            ]
            for (user, time, lon) in posts {
                let answer = try await LoopbackHTTP.fetch(
                    "POST", "/", port: port,
                    headers: [AccountsTests.json, ("Authorization", "Bearer " + phones[user]!)],
                    body: Self.overland(time, lon: lon))
                #expect(answer.status == 200, "\(answer.text)")
            }
            try await Self.expectDaysAddUp(db, dir, "after the posts")
            let owners = try ViewAccountsTests.sessions(db)
            let alice = try #require(owners.first { $0.owner == "alice" }?.id)
            for (user, other) in [("alice", "bob"), ("bob", "alice")] {
                let own = Set(owners.filter { $0.owner == user }.map(\.id))
                let others = owners.filter { $0.owner == other }.map(\.id)
                let (_, cookie) = try await ViewAccountsTests.login(user, "\(user)'s secret", port: port)
                let api = try await LoopbackHTTP.fetch("GET", "/api/stats", port: port, headers: [try #require(cookie)])
                #expect(api.status == 200, "\(api.text)")
                let stats = try Self.json(api.text)
                let trips = (stats["longestTrips"] as? [[String: Any]] ?? []).compactMap { $0["session"] as? String }
                #expect(Set(trips) == own, "\(user): \(api.text)")
                let page = try await LoopbackHTTP.fetch("GET", "/stats", port: port, headers: [try #require(cookie)])
                #expect(page.status == 200, "\(page.text)")
                #expect(own.allSatisfy { page.text.contains($0) }, "\(user): \(page.text)")
                #expect(!others.contains { page.text.contains($0) || api.text.contains($0) }, "\(user): \(page.text)")
            }
            // Without a login, and through a share link, no figures.
            #expect(try await LoopbackHTTP.fetch("GET", "/api/stats", port: port).status == 401)
            #expect(try await LoopbackHTTP.fetch("GET", "/stats", port: port).header("Location") == "/login")
            let share = try await runGPSLogAsync(["share", "add", alice], database: db, folder: dir)
            try #require(share.status == 0, "\(share.stderr)")
            let link = try #require(share.stdout.split(separator: "\n").last.map(String.init))
            let token = String(link.split(separator: "/").last ?? "")
            let shared = try await LoopbackHTTP.fetch("GET", "/s/\(token)/stats", port: port)
            #expect(shared.status == 404 && !shared.text.contains(alice), "\(shared.status) \(shared.text)")
        }
    }
}

/// The /stats page in headless Chromium: the chart is drawn from /api/stats with the dygraphs gpslog serves.
@Suite(
    .ownThreads,
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
            && FileManager.default.fileExists(atPath: "/usr/share/javascript/dygraphs/dygraph.min.js"),
        "needs chromium and libjs-dygraphs (make test installs them)"))
struct StatsPageChartTests {
    @Test(.timeLimit(.minutes(5)))
    func theStatsPageDrawsItsChart() async throws {
        let months = PlotCommandTests.gpx(PlotCommandTests.monthsTrack)
        try await WebViewChartTests.withServed(WebViewChartTests.importing(["months.gpx": months], sample: true)) {
            base, _ in
            let drawn = try #require(
                try WebViewChartTests.evaluate(
                    base + "/stats",
                    """
                    JSON.stringify([document.getElementById('stats-chart').dataset.drawn,
                      document.querySelectorAll('#stats-chart canvas').length,
                      Array.from(document.querySelectorAll('#stats-chart .dygraph-axis-label-x'), (e) => e.textContent)])
                    """) as? [Any])
            #expect(drawn.first as? String == "true", "\(drawn)")
            #expect((drawn[1] as? Int ?? 0) >= 1, "\(drawn)")
            #expect(!(drawn[2] as? [String] ?? []).isEmpty, "\(drawn)")
        }
    }
}
