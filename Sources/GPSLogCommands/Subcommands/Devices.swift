// SPDX-License-Identifier: MIT
import ArgumentParser
import GPSLogModel
import GPSLogStore

extension GPSLog {
    /// Lists the OwnTracks devices `serve` heard from, as the OwnTracks Recorder lists its users and devices.
    struct Devices: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "List the OwnTracks devices `serve` received from: session, card, last location, last will, waypoints.")

        @OptionGroup var global: GlobalOptions
        @Flag(help: "List each device's waypoints (its regions) too.") var waypoints = false
        @Flag(help: "Print JSON instead of text.") var json = false

        struct WaypointJSON: Encodable {
            var desc: String
            var rid: String?
            var latitude: Double?
            var longitude: Double?
            var radius: Double?
            var created: String
        }

        struct DeviceJSON: Encodable {
            /// `USER/DEVICE`.
            var device: String
            var session: String?
            var sessionID: String?
            /// The card's name and tracker id, and the size of its face.
            var name: String?
            var tid: String?
            var faceBytes: Int?
            var lastLocation: String?
            /// When the last lwt came, and when the connection it ends was made (its tst).
            var lastWill: String?
            var lastWillConnected: String?
            var waypoints: Int
            var waypointList: [WaypointJSON]?
        }

        func run() throws {
            let store = try global.openStore()
            defer { store.close() }
            let devices = try store.receivedDevices()
            let all = waypoints ? try store.receivedWaypoints() : []
            let list = { (device: String) in
                all.filter { $0.device == device }.map {
                    WaypointJSON(
                        desc: $0.waypoint.description, rid: $0.waypoint.regionID, latitude: $0.waypoint.latitude,
                        longitude: $0.waypoint.longitude, radius: $0.waypoint.radius,
                        created: $0.waypoint.created.iso8601())
                }
            }
            let rows = devices.map { d in
                DeviceJSON(
                    device: d.device, session: d.session?.name, sessionID: d.session?.id, name: d.card?.name,
                    tid: d.card?.trackerID, faceBytes: d.card?.face?.count, lastLocation: d.lastLocation?.iso8601(),
                    lastWill: d.lastWill?.iso8601(), lastWillConnected: d.lastWillConnected?.iso8601(),
                    waypoints: d.waypoints, waypointList: waypoints ? list(d.device) : nil)
            }
            if json {
                print(try JSONOutput.render(rows))
                return
            }
            guard !rows.isEmpty else {
                print("No OwnTracks devices yet (gpslog serve receives them, over HTTP or with --mqtt).")
                return
            }
            let time = { (t: Timestamp?) in t.map(Format.time) ?? "-" }
            print(
                Format.table(
                    header: ["DEVICE", "NAME", "LAST LOCATION (UTC)", "LAST LWT (UTC)", "WAYPOINTS", "SESSION"],
                    rows: devices.map { d in
                        [
                            d.device, d.card?.name ?? "-", time(d.lastLocation), time(d.lastWill), "\(d.waypoints)",
                            d.session?.name ?? "-",
                        ]
                    }, rightAligned: [4]))
            for row in rows {
                for w in row.waypointList ?? [] {
                    var line = "\(row.device.visible): \(w.desc.visible)"
                    if let lat = w.latitude, let lon = w.longitude {
                        line += "  \(Format.position(latitude: lat, longitude: lon))"
                    }
                    if let radius = w.radius, radius > 0 { line += "  radius \(Format.distance(radius))" }
                    if let rid = w.rid { line += "  rid \(rid.visible)" }
                    print(line)
                }
            }
        }
    }
}
