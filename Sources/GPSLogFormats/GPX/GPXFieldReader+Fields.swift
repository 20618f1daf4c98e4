// SPDX-License-Identifier: MIT
import GPSLogModel

/// A field's collected text made into the value it stands for, or a refusal naming the line.
extension GPXFieldReader {
    /// A number from the collected text; nil when empty; an error naming the line when not a finite number.
    func number(_ field: String) throws -> Double? {
        let trimmed = ByteNumber.trimmed(text)
        if trimmed.isEmpty && !textOverflowed { return nil }
        guard !textOverflowed, let v = ByteNumber.double(trimmed) else { throw invalid(field, trimmed) }
        return v
    }

    /// The refusal of a field's value, which is shown cut when it was longer than what is kept.
    func invalid(_ field: String, _ value: ArraySlice<UInt8>) -> ImportError {
        let shown = String(decoding: value, as: UTF8.self) + (textOverflowed ? "…" : "")
        return ImportError.invalidValue(file: path, line: line, field: field, value: shown)
    }

    mutating func finishField(_ field: Field, visitor: any GPXVisitor) throws {
        switch field {
        case .metaName(let always):
            if always || metadataName == nil {
                metadataName = String(decoding: text, as: UTF8.self).trimmedWhitespace
                visitor.metadata(name: metadataName, time: metadataTime)
            }
        case .metaTime(let always):
            if always || metadataTime == nil {
                // Dates the file's untimed points: a time outside the window is no time (found by the fuzzer).
                metadataTime =
                    textOverflowed
                    ? nil
                    : Timestamp(iso8601Bytes: Array(ByteNumber.trimmed(text))).flatMap {
                        window.contains($0) ? $0 : nil
                    }
                visitor.metadata(name: metadataName, time: metadataTime)
            }
        case .trackName:
            header.name = String(decoding: text, as: UTF8.self).trimmedWhitespace
            visitor.trackHeader(header)
        case .trackType:
            header.mode = TripMode(rawValue: String(decoding: text, as: UTF8.self).trimmedWhitespace.lowercased())
            visitor.trackHeader(header)
        case .trackSource:
            // Our own exports name the session they came from: a re-import keeps its id when it is free.
            let src = String(decoding: text, as: UTF8.self).trimmedWhitespace
            if src.hasPrefix("gpslog session ") {
                header.sourceID = String(src.dropFirst("gpslog session ".count))
                visitor.trackHeader(header)
            }
        case .ele: current.altitude = try number("ele")
        case .time:
            let t = ByteNumber.trimmed(text)
            guard !textOverflowed, let time = Timestamp(iso8601Bytes: t.count == text.count ? text : Array(t)) else {
                throw invalid("time", t)
            }
            // A device's "no time" (GPSBabel's 1901-12-13T20:45:52Z, a 1970 clock) leaves the point untimed: it is
            // dated as points without a time are, and counted for a note.
            if sentinels.take(time, window: window, written: String(decoding: t, as: UTF8.self)) { return }
            // Any other time outside 1980 ... tomorrow is as invalid as an unreadable one (what gpslog stores, its
            // own exports and imports must read back: OwnTracks' tst, say, refuses those years).
            guard window.contains(time) else { throw invalid("time", t) }
            current.time = time
            currentHasTime = true
        case .name: current.label = String(decoding: text, as: UTF8.self)
        case .desc: current.address = String(decoding: text, as: UTF8.self)
        // A count no receiver reports (negative, or past any constellation: 1e300 would trap converting) is none.
        case .sat: current.satellites = try number("sat").flatMap { (0...1024).contains($0) ? Int($0) : nil }
        case .hdop: current.hdop = try number("hdop").flatMap { $0 >= 0 ? $0 : nil }
        case .vdop: current.vdop = try number("vdop").flatMap { $0 >= 0 ? $0 : nil }
        case .pdop: current.pdop = try number("pdop").flatMap { $0 >= 0 ? $0 : nil }
        case .fix:
            switch String(decoding: ByteNumber.trimmed(text), as: UTF8.self) {
            case "2d": current.fixMode = .twoD
            case "3d": current.fixMode = .threeD
            default: break
            }
        case .speed: current.speed = try number("speed").flatMap { $0 >= 0 ? $0 : nil }
        case .course: current.course = try number("course").map { Geo.normalizedDegrees($0) }
        case .pointType:
            currentEvent = RegionEvent(rawValue: String(decoding: ByteNumber.trimmed(text), as: UTF8.self))
        case .heading:
            // Only where the point has no course of its own (OsmAnd writes both in some versions).
            if let heading = try number("heading"), current.course == nil {
                current.course = Geo.normalizedDegrees(heading)
            }
        }
    }
}
