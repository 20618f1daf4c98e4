// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `Geo.isValidPosition` is the one position rule in Swift; the Schema's CHECKs are the one in SQL. They must agree on
/// every edge: the bounds, a hair beyond, signed zeros, the infinities and (for Swift) NaN, which SQLite stores as NULL
/// and so refuses by NOT NULL.
@Suite(.ownThreads)
struct PositionRuleTests {
    static let latitudes: [Double] = [
        0, -0.0, 90, -90, 90.0.nextUp, (-90.0).nextDown, 52.5, .infinity, -.infinity, .nan, .greatestFiniteMagnitude,
    ]
    static let longitudes: [Double] = [
        0, 180, -180, 180.0.nextUp, (-180.0).nextDown, 5.25, .infinity, -.infinity, .nan,
    ]

    @Test func swiftsRuleAndTheSchemasChecksAgreeOnEveryEdge() throws {
        try withTemporaryStore { store, _ in
            let session = try store.createSession(name: "Edges", start: Timestamp(milliseconds: 0))
            var checked = 0
            for (i, lat) in Self.latitudes.enumerated() {
                for (j, lon) in Self.longitudes.enumerated() {
                    var e = makeEntries(count: 1, seed: UInt64(i * 100 + j + 1))[0]
                    e.latitude = lat
                    e.longitude = lon
                    let storedBySQLite = (try? store.append([e], to: session.id)) != nil
                    #expect(
                        Geo.isValidPosition(latitude: lat, longitude: lon) == storedBySQLite, "lat \(lat), lon \(lon)")
                    let fix = Fix(time: e.time, latitude: lat, longitude: lon)
                    #expect(fix.hasValidPosition == storedBySQLite)
                    checked += 1
                }
            }
            #expect(checked == Self.latitudes.count * Self.longitudes.count)
            #expect(try store.entryCount(of: session.id) == 5 * 4, "the valid pairs: 5 latitudes x 4 longitudes")
        }
    }
}
