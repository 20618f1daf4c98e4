// SPDX-License-Identifier: MIT
import GPSLogModel

/// OwnTracks `_type: location` messages, one per line, or in the OwnTracks Recorder's `.rec` layout
/// (`ISO-time<TAB>*<padding to 18><TAB>JSON`). `tst` is Unix seconds (not Overland's 2001-based bug), `vel` km/h;
/// `acc`, `alt`, `cog`, `vac` and `vel` are written only when not zero, as the OwnTracks apps do. `t` says what made
/// the entry (`Entry.trigger`; marks recorded before triggers were kept carry `"t":"u"`, a user-triggered report),
/// and `m` the monitoring mode it was recorded in, for the two modes OwnTracks' format has numbers for
/// (1 significant, 2 move).
public struct OwnTracksWriter: TrackWriter {
    public enum Layout: Sendable { case jsonLines, recorder }

    public var layout: Layout
    /// The tracker id (`tid`): two characters by OwnTracks convention.
    public var trackerID: String
    /// `user/device` for the `topic`, when known.
    public var userDevice: String?

    public init(layout: Layout = .jsonLines, trackerID: String = "gl", userDevice: String? = nil) {
        self.layout = layout
        self.trackerID = trackerID
        self.userDevice = userDevice
    }

    public func write(_ sessions: [SessionExport], to outputs: TrackOutputs) throws {
        let out = try outputs.open(0)
        for s in sessions {
            try s.forEachEntry { e in
                guard !e.isHeadingChanged else { return }
                try out.append { b in
                    if layout == .recorder {
                        // The time of second precision, then the relative topic "*" padded to 18 (%-18s).
                        var iso: [UInt8] = []
                        Timestamp(milliseconds: e.time.milliseconds - ((e.time.milliseconds % 1000) + 1000) % 1000)
                            .appendISO8601(to: &iso, fraction: false)
                        b.append(contentsOf: iso)
                        JSONText.appendRaw("\t*                 \t", to: &b)
                    }
                    appendMessage(e, to: &b)
                    b.append(UInt8(ascii: "\n"))
                }
            }
        }
        try out.commit()
    }

    /// One location message.
    public func appendMessage(_ e: Entry, to b: inout [UInt8]) {
        JSONText.appendRaw(#"{"_type":"location","tid":"#, to: &b)
        JSONText.appendString(trackerID, to: &b)
        JSONText.appendRaw(#","lat":"#, to: &b)
        DecimalText.append(e.latitude, places: Precision.coordinate, to: &b)
        JSONText.appendRaw(#","lon":"#, to: &b)
        DecimalText.append(e.longitude, places: Precision.coordinate, to: &b)
        JSONText.appendRaw(#","tst":"#, to: &b)
        let ms = e.time.milliseconds
        JSONText.appendInt(ms >= 0 ? ms / 1000 : (ms - 999) / 1000, to: &b)
        func int(_ key: StaticString, _ v: Double?) {
            guard let v, v.isFinite else { return }
            let r = Int64(v.rounded())
            guard r != 0 else { return }
            b.append(UInt8(ascii: ","))
            JSONText.appendKey(key, to: &b)
            JSONText.appendInt(r, to: &b)
        }
        int("acc", e.horizontalAccuracy)
        int("alt", e.altitude)
        int("vac", e.verticalAccuracy)
        int("vel", e.speed.map { $0 * 3.6 })
        int("cog", e.course.map { $0.rounded() >= 360 ? 0 : $0 })
        if let level = e.batteryLevel {
            JSONText.appendRaw(#","batt":"#, to: &b)
            JSONText.appendInt(Int64((level * 100).rounded()), to: &b)
        }
        if let trigger = e.trigger ?? (e.marked ? .user : nil) {
            JSONText.appendRaw(#","t":"#, to: &b)
            JSONText.appendString(trigger.rawValue, to: &b)
        }
        if let mode = e.monitoring, mode == .significant || mode == .move {
            JSONText.appendRaw(#","m":"#, to: &b)
            JSONText.appendInt(Int64(mode.rawValue), to: &b)
        }
        if let userDevice {
            JSONText.appendRaw(#","topic":"#, to: &b)
            JSONText.appendString("owntracks/" + userDevice, to: &b)
        }
        b.append(UInt8(ascii: "}"))
    }
}
