// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogXML

/// gpslog's XML session export, after GPS Log's: a `Session` element with the Sessions columns as attributes, an
/// `Entry` per row with every Entries column (absent attributes are NULL), then a `Transition` per region transition
/// and a `Visit` per visit, with their columns. Described by `Schema/gpslog-sessions.xsd`
/// and validated against it in the tests; `import` reads it back.
public struct SessionXMLWriter: TrackWriter {
    /// The XML namespace of the document (`Schema/gpslog-sessions.xsd`).
    public static let namespace = "urn:gpslog:sessions:1"

    /// An XML session writer; it has no options.
    public init() {}

    /// Writes one `Sessions` document to output 0, one `Session` element per session.
    public func write(_ sessions: [SessionExport], to outputs: TrackOutputs) throws {
        try outputs.writeXML(root: "Sessions", attributes: ["xmlns": Self.namespace, "version": "1"]) { w in
            for s in sessions {
                try w.startElement("Session")
                try w.attribute("ID", s.session.id)
                try w.attribute("Name", s.session.name)
                try w.attribute("StartTime", s.session.start.iso8601(fraction: true))
                if let end = s.session.end { try w.attribute("EndTime", end.iso8601(fraction: true)) }
                if let mode = s.session.mode { try w.attribute("Mode", mode.rawValue) }
                try s.forEachEntry { e in try entry(e, writer: w) }
                for t in try s.transitions() { try transition(t, writer: w) }
                for v in try s.visits() { try visit(v, writer: w) }
                try w.endElement()
            }
        }
    }

    /// A region transition: the event, where and when, and its region (centre and radius only when known).
    private func transition(_ t: Transition, writer w: XMLStreamWriter) throws {
        try w.startElement("Transition")
        try w.attribute("Event", t.event.rawValue)
        try w.attribute("TimeStamp", t.time.iso8601(fraction: true))
        try w.attribute("Latitude", DecimalText.string(t.latitude, places: Precision.coordinate))
        try w.attribute("Longitude", DecimalText.string(t.longitude, places: Precision.coordinate))
        if let v = t.horizontalAccuracy {
            try w.attribute("HorizontalAccuracy", DecimalText.string(v, places: Precision.accuracy))
        }
        if let trigger = t.trigger { try w.attribute("Trigger", trigger.rawValue) }
        try w.attribute("RegionName", t.region.name)
        if !t.region.regionID.isEmpty { try w.attribute("RegionID", t.region.regionID) }
        try w.attribute("RegionCreated", t.region.created.iso8601(fraction: true))
        if t.regionIsKnown {
            try w.attribute("RegionLatitude", DecimalText.string(t.region.latitude, places: Precision.coordinate))
            try w.attribute("RegionLongitude", DecimalText.string(t.region.longitude, places: Precision.coordinate))
            try w.attribute("RegionRadius", DecimalText.string(t.region.radius, places: Precision.accuracy))
        }
        try w.endElement()
    }

    /// A visit: where, how precisely, arrival and departure (none while still there), the name the user gave the
    /// place (as the session's `Name`, an attribute), its address as text.
    private func visit(_ v: Visit, writer w: XMLStreamWriter) throws {
        try w.startElement("Visit")
        try w.attribute("Arrival", v.arrival.iso8601(fraction: true))
        if let departure = v.departure { try w.attribute("Departure", departure.iso8601(fraction: true)) }
        try w.attribute("Latitude", DecimalText.string(v.latitude, places: Precision.coordinate))
        try w.attribute("Longitude", DecimalText.string(v.longitude, places: Precision.coordinate))
        try w.attribute("HorizontalAccuracy", DecimalText.string(v.horizontalAccuracy, places: Precision.accuracy))
        if let name = v.name { try w.attribute("Name", name) }
        if let address = v.address { try w.element("Address", address) }
        try w.endElement()
    }

    private func entry(_ e: Entry, writer w: XMLStreamWriter) throws {
        try w.startElement("Entry")
        func attr(_ name: String, _ v: Double?, _ places: Int) throws {
            if let v { try w.attribute(name, DecimalText.string(v, places: places)) }
        }
        func attr(_ name: String, _ v: String?) throws {
            if let v { try w.attribute(name, v) }
        }
        try attr("EntryID", e.id)
        try attr("TimeStamp", e.time.iso8601(fraction: true))
        try attr("Latitude", e.latitude, Precision.coordinate)
        try attr("Longitude", e.longitude, Precision.coordinate)
        try attr("Altitude", e.altitude, Precision.altitude)
        try attr("HorizontalAccuracy", e.horizontalAccuracy, Precision.accuracy)
        try attr("VerticalAccuracy", e.verticalAccuracy, Precision.accuracy)
        try attr("Speed", e.speed, Precision.speed)
        try attr("Course", e.course, Precision.angle)
        try attr("Marked", e.marked ? "true" : "false")
        try attr("Label", e.label)
        try attr("InstanceCount", String(e.instanceCount))
        try attr("IsHeadingChanged", e.isHeadingChanged ? "true" : "false")
        try attr("Heading", e.heading, Precision.angle)
        try attr("HeadingTimeStamp", e.headingTime?.iso8601(fraction: true))
        try attr("Satellites", e.satellites.map(String.init))
        try attr("HDOP", e.hdop, Precision.dop)
        try attr("VDOP", e.vdop, Precision.dop)
        try attr("PDOP", e.pdop, Precision.dop)
        try attr("FixMode", e.fixMode.map { String($0.rawValue) })
        try attr("SpeedAccuracy", e.speedAccuracy, Precision.accuracy)
        try attr("CourseAccuracy", e.courseAccuracy, Precision.accuracy)
        try attr("Motion", e.motion.map { $0.joined(separator: " ") })
        try attr("BatteryState", e.batteryState?.rawValue)
        try attr("BatteryLevel", e.batteryLevel, Precision.battery)
        try attr("DeviceID", e.deviceID)
        try attr("Wifi", e.wifi)
        // Only when set: GPS Log's own files have no such attribute.
        if e.startsSegment { try attr("StartsSegment", "true") }
        try attr("Monitoring", e.monitoring?.name)
        try attr("ReportTrigger", e.trigger?.rawValue)
        // Region names may hold spaces: a JSON array, as the database keeps it.
        try attr("InRegions", e.inRegions.map(JSONText.stringArray))
        try attr("Tag", e.tag)
        if e.isPOI { try attr("IsPOI", "true") }
        // The address is text content: it can be long and hold line breaks.
        if let address = e.address { try w.element("Address", address) }
        try w.endElement()
    }
}
