// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogImportExport
import GPSLogModel
import GPSLogPipeline
import GPSLogRecording
import GPSLogStore

/// `--inside WEST,SOUTH,EAST,NORTH`: an area in degrees, in GeoJSON's bbox order (RFC 7946 section 5, and GDAL's
/// `-spat`); west above east crosses the 180th meridian.
struct BoxOption: ExpressibleByArgument, Sendable {
    var box: GeoBox

    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false).map {
            Double($0.trimmingCharacters(in: .whitespaces))
        }
        guard parts.count == 4, let west = parts[0], let south = parts[1], let east = parts[2], let north = parts[3],
            (-180...180).contains(west), (-180...180).contains(east), (-90...90).contains(south),
            (-90...90).contains(north), south <= north
        else { return nil }
        box = GeoBox(south: south, west: west, north: north, east: east)
    }
}

/// `--older-than 2y`: an age in hours (`h`), days (`d`), weeks (`w`), months (`mo`) or years (`y`); months and years
/// are calendar ones, counted back from now in UTC.
struct AgeOption: ExpressibleByArgument, Sendable {
    enum Unit: String, CaseIterable { case h, d, w, mo, y }
    var count: Int
    var unit: Unit

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        guard
            let unit = Unit.allCases.sorted(by: { $0.rawValue.count > $1.rawValue.count }).first(where: {
                text.hasSuffix($0.rawValue)
            }), let count = Int(text.dropLast(unit.rawValue.count)), (1...1000).contains(count)
        else { return nil }
        self.count = count
        self.unit = unit
    }

    /// The moment this age before `now`.
    func cut(before now: Date = Date()) -> Timestamp {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date: Date =
            switch unit {
            case .h: now.addingTimeInterval(-3600 * Double(count))
            case .d: now.addingTimeInterval(-86_400 * Double(count))
            case .w: now.addingTimeInterval(-7 * 86_400 * Double(count))
            case .mo: calendar.date(byAdding: .month, value: -count, to: now)!
            case .y: calendar.date(byAdding: .year, value: -count, to: now)!
            }
        return Timestamp(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }
}

/// The rule every cleaning follows: the session a recorder is writing now is not changed under it.
enum RecordingGuard {
    /// The open sessions of a database whose recorder is running (its lock is held); none when no recorder runs
    /// (an open session is then one a recorder left, or a device's that `serve` writes into).
    static func recorded(in store: Store, database: String) throws -> [Session] {
        guard RecordingLock.isHeld(database: database) else { return [] }
        return try store.openSessions().filter { !$0.isReceived(in: store) }
    }

    /// Throws when `session` is being recorded.
    static func refuse(_ session: Session, store: Store, database: String, doing what: String) throws {
        guard try recorded(in: store, database: database).contains(where: { $0.key == session.key }) else { return }
        let pid = RecordingLock.holderPID(database: database).map { " (pid \($0))" } ?? ""
        throw CommandError.refused(
            "'\(session.name.visible)' is being recorded\(pid): \(what) it after the recording ends (gpslog stop), "
                + "or record with --split to close a session every day")
    }
}

extension Session {
    /// Whether `serve` writes this session (a device's), which a recorder never does.
    fileprivate func isReceived(in store: Store) -> Bool { ((try? store.receiver(of: self)) ?? nil) != nil }
}

/// `--inside-region NAME`: a region's test for a position, and a box around it that holds it (its circle's; a
/// polygon's circle holds every vertex, see `PolygonRegions`).
enum RegionArea {
    static func selection(named name: String, store: Store) throws -> (GeoBox, @Sendable (Double, Double) -> Bool) {
        guard let region = try store.regions().first(where: { $0.name == name }) else {
            throw CommandError.noRegion(name.visible)
        }
        let (lat, lon, radius) = (region.latitude, region.longitude, region.radius)
        let dLat = radius / 111_000 * 1.01
        let dLon = abs(lat) + dLat >= 89 ? 180 : dLat / cos((abs(lat) + dLat) * .pi / 180)
        let box =
            dLon >= 180
            ? GeoBox(south: max(-90, lat - dLat), west: -180, north: min(90, lat + dLat), east: 180)
            : GeoBox(
                south: max(-90, lat - dLat), west: wrapped(lon - dLon), north: min(90, lat + dLat),
                east: wrapped(lon + dLon))
        guard region.isPolygon else {
            return (box, { Geo.distance(lat1: lat, lon1: lon, lat2: $0, lon2: $1) <= radius })
        }
        let outline = try PolygonOutline(region)
        return (box, { (try? outline.signedDistance(latitude: $0, longitude: $1)).map { $0 <= 0 } ?? false })
    }

    private static func wrapped(_ longitude: Double) -> Double {
        longitude > 180 ? longitude - 360 : longitude < -180 ? longitude + 360 : longitude
    }
}
