// SPDX-License-Identifier: MIT
import GPSLogModel

/// OwnTracks messages, one per line, or in the OwnTracks Recorder's `.rec` layout (`ISO-time<TAB>TYPE<padding to
/// 18><TAB>JSON`, TYPE the topic after `owntracks/USER/DEVICE/` as the Recorder writes it: `*` for a location, `event`
/// for a transition, `waypoint` for a region). Each session's lines are the waypoints of the regions its transitions
/// went through (when their centre and radius are known), then its locations with the transitions between them, in
/// time order. `tst` is Unix seconds (not Overland's 2001-based bug), `vel` km/h;
/// `acc`, `alt`, `cog`, `vac` and `vel` are written only when not zero, as the OwnTracks apps do. `t` says what made
/// the entry (`Entry.trigger`; marks recorded before triggers were kept carry `"t":"u"`, a user-triggered report),
/// and `m` the monitoring mode it was recorded in, for the two modes OwnTracks' format has numbers for
/// (1 significant, 2 move).
public struct OwnTracksWriter: TrackWriter {
    /// One JSON message a line, or the OwnTracks Recorder's `.rec` lines.
    public enum Layout: Sendable { case jsonLines, recorder }

    /// Plain lines or `.rec`.
    public var layout: Layout
    /// The tracker id (`tid`): two characters by OwnTracks convention.
    public var trackerID: String
    /// `user/device` for the `topic`, when known.
    public var userDevice: String?

    /// A writer of JSON lines with tracker id `gl` and no topic, unless told otherwise.
    public init(layout: Layout = .jsonLines, trackerID: String = "gl", userDevice: String? = nil) {
        self.layout = layout
        self.trackerID = trackerID
        self.userDevice = userDevice
    }

    /// Writes every session's lines to output 0, session after session.
    public func write(_ sessions: [SessionExport], to outputs: TrackOutputs) throws {
        let out = try outputs.open(0)
        for s in sessions {
            // Transitions (a few) go between the locations, in time order, each before the location it made.
            var transitions = try s.transitions()[...]
            func line(_ time: Timestamp, _ type: StaticString, _ message: (inout [UInt8]) -> Void) throws {
                try out.append { b in
                    if layout == .recorder {
                        // The time of second precision, then the relative topic padded to 18 (RECFORMAT's %-18s).
                        var iso: [UInt8] = []
                        Timestamp(milliseconds: time.milliseconds.floorSeconds * 1000)
                            .appendISO8601(to: &iso, fraction: false)
                        b.append(contentsOf: iso)
                        b.append(UInt8(ascii: "\t"))
                        JSONText.appendRaw(type, to: &b)
                        b.append(
                            contentsOf: repeatElement(UInt8(ascii: " "), count: max(0, 18 - type.utf8CodeUnitCount)))
                        b.append(UInt8(ascii: "\t"))
                    }
                    message(&b)
                    b.append(UInt8(ascii: "\n"))
                }
            }
            for region in Self.knownRegions(of: transitions) {
                try line(region.created, "waypoint") { appendWaypoint(region, to: &$0) }
            }
            try s.forEachEntry { e in
                guard !e.isHeadingChanged else { return }
                while let t = transitions.first, t.time <= e.time {
                    try line(t.time, "event") { appendTransition(t, to: &$0) }
                    transitions.removeFirst()
                }
                try line(e.time, "*") { appendMessage(e, to: &$0) }
            }
            for t in transitions { try line(t.time, "event") { appendTransition(t, to: &$0) } }
        }
        try out.commit()
    }

    /// The regions of `transitions` whose centre and radius are known, once each (by rid, else by creation), in
    /// order of first use: written as waypoints, so that a reader of the file knows what each transition went through.
    static func knownRegions(of transitions: ArraySlice<Transition>) -> [Region] {
        var seen = Set<String>()
        return transitions.compactMap { t in
            guard t.regionIsKnown, t.region.radius > 0 else { return nil }
            let key = t.region.regionID.isEmpty ? "tst:\(t.region.created.milliseconds)" : t.region.regionID
            return seen.insert(key).inserted ? t.region : nil
        }
    }

    /// One transition message (`_type: transition`): the region's `desc`, `rid` (when known) and creation time
    /// (`wtst`), the event, where and when it happened, and what kind of region made it (`t`: `c` for gpslog's own
    /// circular regions; a received transition's own, or none when it said none).
    public func appendTransition(_ t: Transition, to b: inout [UInt8]) {
        JSONText.appendRaw(#"{"_type":"transition","tid":"#, to: &b)
        JSONText.appendString(trackerID, to: &b)
        JSONText.appendRaw(#","wtst":"#, to: &b)
        JSONText.appendInt(t.region.created.milliseconds.floorSeconds, to: &b)
        JSONText.appendRaw(#","tst":"#, to: &b)
        JSONText.appendInt(t.time.milliseconds.floorSeconds, to: &b)
        JSONText.appendRaw(#","acc":"#, to: &b)
        JSONText.appendInt(Int64((t.horizontalAccuracy ?? 0).rounded()), to: &b)
        JSONText.appendRaw(#","lat":"#, to: &b)
        DecimalText.append(t.latitude, places: Precision.coordinate, to: &b)
        JSONText.appendRaw(#","lon":"#, to: &b)
        DecimalText.append(t.longitude, places: Precision.coordinate, to: &b)
        JSONText.appendRaw(#","event":"#, to: &b)
        JSONText.appendString(t.event.rawValue, to: &b)
        JSONText.appendRaw(#","desc":"#, to: &b)
        JSONText.appendString(t.region.name, to: &b)
        if !t.region.regionID.isEmpty {
            JSONText.appendRaw(#","rid":"#, to: &b)
            JSONText.appendString(t.region.regionID, to: &b)
        }
        if let trigger = t.trigger {
            JSONText.appendRaw(#","t":"#, to: &b)
            JSONText.appendString(trigger.rawValue, to: &b)
        }
        if let userDevice {
            JSONText.appendRaw(#","topic":"#, to: &b)
            JSONText.appendString("owntracks/" + userDevice + "/event", to: &b)
        }
        b.append(UInt8(ascii: "}"))
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
        JSONText.appendInt(e.time.milliseconds.floorSeconds, to: &b)
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
        if let tag = e.tag { JSONText.appendOptional("tag", tag, to: &b) }
        if e.isPOI, let poi = e.label { JSONText.appendOptional("poi", poi, to: &b) }
        if let regions = e.inRegions, !regions.isEmpty {
            JSONText.appendRaw(#","inregions":"#, to: &b)
            JSONText.appendStringArray(regions, to: &b)
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

extension Int64 {
    /// Milliseconds as whole Unix seconds, rounded down (OwnTracks' `tst`).
    var floorSeconds: Int64 { self >= 0 ? self / 1000 : (self - 999) / 1000 }
}
