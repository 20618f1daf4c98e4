// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel

extension FuzzTarget {
    /// One OwnTracks message as `serve` stores it (`OwnTracksMessage.received`): every value taken is one the
    /// received tables take (positions in range and not 0, 0; times from 1980 to tomorrow; texts bounded; a face a
    /// bounded PNG or JPEG), a location is the one `import` reads, or the refusal names the message.
    static func checkReceived(_ data: Data, imported: Entry?) {
        let message: OwnTracksReceived
        do {
            message = try OwnTracksMessage.received(data, source: payloadSource)
        } catch {
            FuzzInvariant.refusal(error, from: "OwnTracksMessage.received", naming: payloadSource)
            return
        }
        let reader = "OwnTracksMessage.received"
        func time(_ t: Timestamp, _ what: String) {
            FuzzInvariant.check(TimeWindow.current.contains(t), "\(reader) accepted the \(what) \(t.milliseconds) ms")
        }
        func text(_ s: String?, _ limit: Int, _ what: String) {
            guard let s else { return }
            FuzzInvariant.check(!s.isEmpty && s.count <= limit, "\(reader) accepted the \(what) \(s.visible)")
        }
        switch message {
        case .location(let entry):
            FuzzInvariant.accepted(entry, from: reader, plausibleTime: true, plausiblePosition: true)
            FuzzInvariant.check(entry == imported, "serve stores a location import reads otherwise")
        case .transition(let t):
            FuzzInvariant.check(
                Geo.isPlausiblePosition(latitude: t.latitude, longitude: t.longitude),
                "\(reader) accepted the transition position \(t.latitude), \(t.longitude)")
            time(t.time, "transition time")
            time(t.regionCreated, "transition wtst")
            text(t.regionName, TextLimit.label, "desc")
            text(t.regionID, 64, "rid")
            FuzzInvariant.check(t.regionName != nil || t.regionID != nil, "\(reader) accepted an unnamed region")
            FuzzInvariant.check(t.horizontalAccuracy.map { $0 > 0 && $0.isFinite } ?? true, "a bad transition acc")
        case .waypoints(let waypoints):
            FuzzInvariant.check(waypoints.count <= OwnTracksMessage.maxWaypoints, "\(reader) took too many waypoints")
            for w in waypoints {
                text(w.description, TextLimit.label, "desc")
                text(w.regionID, 64, "rid")
                time(w.created, "waypoint tst")
                FuzzInvariant.check((w.latitude == nil) == (w.longitude == nil), "\(reader) took half a position")
                if let lat = w.latitude, let lon = w.longitude {
                    FuzzInvariant.check(
                        Geo.isPlausiblePosition(latitude: lat, longitude: lon),
                        "\(reader) took the waypoint \(lat), \(lon)")
                }
                FuzzInvariant.check(w.radius.map { $0 >= 0 && $0 <= 1_000_000 } ?? true, "\(reader) took a bad rad")
            }
        case .lastWill(let connected):
            time(connected, "lwt tst")
        case .card(let card):
            text(card.name, DeviceCard.maxNameLength, "card name")
            text(card.trackerID, 64, "tid")
            if let face = card.face {
                FuzzInvariant.check(
                    face.count <= DeviceCard.maxFaceBytes
                        && (face.starts(with: [0x89, 0x50, 0x4E, 0x47]) || face.starts(with: [0xFF, 0xD8, 0xFF])),
                    "\(reader) took a face of \(face.count) bytes that is not a bounded PNG or JPEG")
            }
        case .other(let type):
            FuzzInvariant.check(
                !["location", "transition", "waypoint", "waypoints", "lwt", "card"].contains(type),
                "\(reader) did not read a \(type.visible) message")
        }
    }
}
