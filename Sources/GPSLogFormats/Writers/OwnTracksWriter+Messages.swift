// SPDX-License-Identifier: MIT
import GPSLogModel

/// The OwnTracks messages an app publishes besides locations and transitions: its last will (`lwt`), its card
/// (`card`, on `.../info`) and its regions (`waypoint`, on `.../waypoint`).
extension OwnTracksWriter {
    /// `{"_type":"lwt","tst":...}`: the will set at CONNECT, with the time of that connection.
    public static func lwtMessage(connectedAt time: Timestamp) -> [UInt8] {
        var b: [UInt8] = []
        JSONText.appendRaw(#"{"_type":"lwt","tst":"#, to: &b)
        JSONText.appendInt(time.milliseconds.floorSeconds, to: &b)
        b.append(UInt8(ascii: "}"))
        return b
    }

    /// `{"_type":"card","name":...,"face":...,"tid":...}`: how friends' apps and the Recorder show this device.
    public func cardMessage(name: String, face: String?) -> [UInt8] {
        var b: [UInt8] = []
        JSONText.appendRaw(#"{"_type":"card","name":"#, to: &b)
        JSONText.appendString(name, to: &b)
        JSONText.appendOptional("face", face, to: &b)
        JSONText.appendRaw(#","tid":"#, to: &b)
        JSONText.appendString(trackerID, to: &b)
        b.append(UInt8(ascii: "}"))
        return b
    }

    /// `{"_type":"waypoint",...}`: a region as the apps publish it when it is made or changed (`tst` its creation,
    /// which transitions carry as `wtst`).
    public func waypointMessage(_ region: Region) -> [UInt8] {
        var b: [UInt8] = []
        appendWaypoint(region, to: &b)
        return b
    }

    /// Appends a `waypoint` message (`rid` when the region has one; the `topic` when `userDevice` is known).
    public func appendWaypoint(_ region: Region, to b: inout [UInt8]) {
        JSONText.appendRaw(#"{"_type":"waypoint","desc":"#, to: &b)
        JSONText.appendString(region.name, to: &b)
        JSONText.appendRaw(#","lat":"#, to: &b)
        DecimalText.append(region.latitude, places: Precision.coordinate, to: &b)
        JSONText.appendRaw(#","lon":"#, to: &b)
        DecimalText.append(region.longitude, places: Precision.coordinate, to: &b)
        JSONText.appendRaw(#","rad":"#, to: &b)
        JSONText.appendInt(Int64(region.radius.rounded()), to: &b)
        JSONText.appendRaw(#","tst":"#, to: &b)
        JSONText.appendInt(region.created.milliseconds.floorSeconds, to: &b)
        if !region.regionID.isEmpty {
            JSONText.appendRaw(#","rid":"#, to: &b)
            JSONText.appendString(region.regionID, to: &b)
        }
        if let userDevice {
            JSONText.appendRaw(#","topic":"#, to: &b)
            JSONText.appendString("owntracks/" + userDevice + "/waypoint", to: &b)
        }
        b.append(UInt8(ascii: "}"))
    }
}
