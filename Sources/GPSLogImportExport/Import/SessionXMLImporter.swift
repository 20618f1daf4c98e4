// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogPipeline
import GPSLogStore
import GPSLogXML

/// Imports gpslog's own XML session export, streaming: every column comes back, and session and entry ids are
/// kept when the database does not have them yet (so export, import, export gives the same bytes).
public struct SessionXMLImporter {
    /// Session name for every session (default: each session's `Name` in the file, else the file name's stem).
    public var name: String?

    /// An importer that keeps the file's names.
    public init() {}

    /// Imports `path` in one transaction; returns the sessions made, in file order.
    public func importFile(_ path: String, into store: Store) throws -> [ImportResult] {
        try FileImport.run(path, store: store) { try parse(path, store: store) }
    }

    private func parse(_ path: String, store: Store) throws -> [ImportResult] {
        let reader = try XMLStreamReader(path: path)
        var results: [ImportResult] = []
        var sink: EntryWriter?
        var current: Entry?
        /// A Visit whose Address is being read.
        var currentVisit: Visit?
        var sawRoot = false
        func attribute(_ name: String) -> String? { reader.attribute(name) }
        func time(_ field: String, required: Bool) throws -> Timestamp? {
            guard let text = attribute(field) else {
                if required { throw ImportError.invalidValue(file: path, line: reader.line, field: field, value: "") }
                return nil
            }
            guard let t = Timestamp(iso8601: text) else {
                throw ImportError.invalidValue(file: path, line: reader.line, field: field, value: text)
            }
            return t
        }
        /// An attribute that must be one of the values `parse` knows (an enum, a boolean); absent: nil.
        func known<T>(_ field: String, _ parse: (String) -> T?) throws -> T? {
            guard let text = attribute(field) else { return nil }
            guard let value = parse(text) else {
                throw ImportError.invalidValue(file: path, line: reader.line, field: field, value: text)
            }
            return value
        }
        /// xsd:boolean: true, false, 1 or 0; absent: false.
        func flag(_ field: String) throws -> Bool {
            try known(field) { ["true": true, "1": true, "false": false, "0": false][$0] } ?? false
        }
        func number(_ field: String) throws -> Double? {
            guard let text = attribute(field) else { return nil }
            guard let v = Double(text), v.isFinite else {
                throw ImportError.invalidValue(file: path, line: reader.line, field: field, value: text)
            }
            return v
        }
        func position(_ field: String, limit: Double, required: Bool) throws -> Double? {
            let v = try number(field)
            guard let v else {
                if required { throw ImportError.invalidValue(file: path, line: reader.line, field: field, value: "") }
                return nil
            }
            guard abs(v) <= limit else {
                throw ImportError.invalidValue(file: path, line: reader.line, field: field, value: attribute(field)!)
            }
            return v
        }
        /// A Transition element (`SessionXMLWriter`): its region's centre and radius are known when written.
        func transition() throws -> Transition {
            let event = try known("Event", RegionEvent.init(rawValue:))
            guard let event else {
                throw ImportError.invalidValue(file: path, line: reader.line, field: "Event", value: "")
            }
            let lat = try position("Latitude", limit: 90, required: true)!
            let lon = try position("Longitude", limit: 180, required: true)!
            let centre = try (
                position("RegionLatitude", limit: 90, required: false),
                position("RegionLongitude", limit: 180, required: false)
            )
            let region = Region(
                name: (attribute("RegionName") ?? "").truncated(to: TextLimit.label), latitude: centre.0 ?? lat,
                longitude: centre.1 ?? lon, radius: try number("RegionRadius") ?? 0,
                regionID: attribute("RegionID") ?? "", created: try time("RegionCreated", required: true)!)
            var t = Transition(
                region: region, event: event, time: try time("TimeStamp", required: true)!, latitude: lat,
                longitude: lon, horizontalAccuracy: try number("HorizontalAccuracy"),
                trigger: try known("Trigger", TransitionTrigger.init(rawValue:)))
            t.regionIsKnown = centre.0 != nil && centre.1 != nil
            return t
        }
        func visit() throws -> Visit {
            Visit(
                latitude: try position("Latitude", limit: 90, required: true)!,
                longitude: try position("Longitude", limit: 180, required: true)!,
                horizontalAccuracy: try number("HorizontalAccuracy") ?? 0,
                arrival: try time("Arrival", required: true)!, departure: try time("Departure", required: false),
                // Cut to the column's length by the store, as an address is; control characters are kept, as in
                // the address (XML cannot carry most of them: the writer made them U+FFFD).
                name: attribute("Name"))
        }
        while try reader.read() {
            switch reader.nodeType {
            case .element:
                let local = reader.localName
                if !sawRoot {
                    guard local == "Sessions", reader.namespaceURI == SessionXMLWriter.namespace else {
                        throw ImportError.unsupportedFormat(
                            file: path,
                            detail:
                                "not a gpslog session export: the root is <\(local)> in namespace '\(reader.namespaceURI ?? "none")'"
                        )
                    }
                    sawRoot = true
                    continue
                }
                // An Entry still open when the next Entry or Session starts (nested where the schema has none) is
                // stored first, in its own session: ids are checked against what is stored (found by the fuzzer).
                if local == "Entry" || local == "Session", let e = current {
                    try sink!.add(e)
                    current = nil
                }
                switch local {
                case "Transition":
                    guard let id = sink?.session?.id else { continue }
                    try store.addTransition(try transition(), to: id)
                case "Visit":
                    guard let id = sink?.session?.id else { continue }
                    let v = try visit()
                    if reader.isEmptyElement { try store.addVisit(v, to: id) } else { currentVisit = v }
                case "Session":
                    if var open = sink {
                        results.append(ImportResult(try open.finish()))
                        sink = nil
                    }
                    let start = try time("StartTime", required: true)!
                    let modeText = attribute("Mode")
                    let mode = modeText.flatMap(TripMode.init(rawValue:))
                    if let modeText, mode == nil {
                        throw ImportError.invalidValue(file: path, line: reader.line, field: "Mode", value: modeText)
                    }
                    // A blank Name is no name: the session is named after the file (as a blank GPX name is).
                    let named = attribute("Name").flatMap { $0.trimmedWhitespace.isEmpty ? nil : $0 }
                    let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
                    sink = try EntryWriter(
                        sink: store, name: name ?? named ?? stem, start: start,
                        end: try time("EndTime", required: false), mode: mode, preferredID: attribute("ID"))
                case "Entry":
                    guard var s = sink else { continue }
                    let line = reader.line
                    guard let lat = try number("Latitude"), abs(lat) <= 90 else {
                        throw ImportError.invalidValue(
                            file: path, line: line, field: "Latitude", value: attribute("Latitude") ?? "")
                    }
                    guard let lon = try number("Longitude"), abs(lon) <= 180 else {
                        throw ImportError.invalidValue(
                            file: path, line: line, field: "Longitude", value: attribute("Longitude") ?? "")
                    }
                    let t = try time("TimeStamp", required: true)!
                    let fileID = attribute("EntryID") ?? ""
                    let id = try s.canKeep(entryID: fileID) ? fileID.lowercased() : s.makeUnusedID(t)
                    sink = s
                    var e = Entry(id: id, latitude: lat, longitude: lon, time: t)
                    e.altitude = try number("Altitude")
                    e.horizontalAccuracy = try number("HorizontalAccuracy")
                    e.verticalAccuracy = try number("VerticalAccuracy")
                    e.speed = try number("Speed")
                    e.course = try number("Course")
                    e.marked = try flag("Marked")
                    e.label = attribute("Label")
                    e.instanceCount = Int(attribute("InstanceCount") ?? "1") ?? 1
                    e.isHeadingChanged = try flag("IsHeadingChanged")
                    e.heading = try number("Heading")
                    e.headingTime = try time("HeadingTimeStamp", required: false)
                    e.satellites = attribute("Satellites").flatMap { Int($0) }
                    e.hdop = try number("HDOP")
                    e.vdop = try number("VDOP")
                    e.pdop = try number("PDOP")
                    e.fixMode = attribute("FixMode").flatMap { Int($0) }.flatMap(FixMode.init(rawValue:))
                    e.speedAccuracy = try number("SpeedAccuracy")
                    e.courseAccuracy = try number("CourseAccuracy")
                    e.motion = attribute("Motion").map { $0.split(separator: " ").map(String.init) }
                    e.batteryState = attribute("BatteryState").flatMap(BatteryState.init(rawValue:))
                    e.batteryLevel = try number("BatteryLevel")
                    e.deviceID = attribute("DeviceID")
                    e.wifi = attribute("Wifi")
                    e.startsSegment = try flag("StartsSegment")
                    // The names the schema lists, not OwnTracks' numbers (which MonitoringMode(name:) also takes).
                    e.monitoring = try known("Monitoring") { name in
                        MonitoringMode.allCases.first { $0.name == name }
                    }
                    e.trigger = try known("ReportTrigger", ReportTrigger.init(rawValue:))
                    e.tag = attribute("Tag")
                    e.isPOI = try flag("IsPOI")
                    e.inRegions = try known("InRegions") {
                        (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String]
                    }
                    // Refused here, naming the line, rather than by the database, which can name only the entry.
                    if let rule = Store.brokenRule(e) {
                        throw ImportError.malformed(
                            file: path, line: line, reason: "this Entry breaks the rule \(rule) (Schema/*.sql)")
                    }
                    if reader.isEmptyElement {
                        try sink!.add(e)
                    } else {
                        current = e
                    }
                case "Address":
                    // Kept to four bytes a character of the store's limit (which cuts it to characters).
                    if current != nil {
                        current!.address = try reader.readElementText(limit: (TextLimit.address + 1) * 4)
                    } else if currentVisit != nil {
                        currentVisit!.address = try reader.readElementText(limit: (TextLimit.address + 1) * 4)
                    }
                default:
                    continue
                }
            case .endElement where reader.localName == "Entry":
                if let e = current {
                    try sink!.add(e)
                    current = nil
                }
            case .endElement where reader.localName == "Visit":
                if let v = currentVisit, let id = sink?.session?.id {
                    try store.addVisit(v, to: id)
                }
                currentVisit = nil
            default:
                continue
            }
        }
        if var open = sink { results.append(ImportResult(try open.finish())) }
        guard !results.isEmpty else { throw ImportError.noFixes(file: path, detail: "no Session element") }
        return results
    }
}
