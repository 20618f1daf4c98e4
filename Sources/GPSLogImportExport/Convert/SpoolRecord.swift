// SPDX-License-Identifier: MIT
import GPSLogModel

/// The spool's record layout for one entry: a 4-byte total size, a 4-byte mask of the fields present, the fixed
/// fields (key, latitude, longitude, time, instance count, id), then each present optional in mask order. Native
/// byte order: the file never leaves the process that wrote it.
enum SpoolRecord {
    private enum Bit: Int {
        case altitude, horizontalAccuracy, verticalAccuracy, speed, course, heading, headingTime, satellites, hdop, vdop
        case pdop, fixMode, speedAccuracy, courseAccuracy, batteryLevel, address, label, motion, batteryState, deviceID
        case wifi, marked, isHeadingChanged, startsSegment, monitoring, trigger, inRegions, tag, isPOI, attributes
    }

    @inline(__always) private static func put<T>(_ value: T, _ out: inout [UInt8]) {
        withUnsafeBytes(of: value) { out.append(contentsOf: $0) }
    }

    private static func put(_ text: String, _ out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            put(UInt32(bytes.count), &out)
            out.append(contentsOf: bytes)
        }
    }

    /// Appends one record.
    static func append(_ e: Entry, to out: inout [UInt8]) {
        let start = out.count
        var mask: UInt32 = 0
        func has(_ bit: Bit, _ present: Bool) { if present { mask |= 1 << UInt32(bit.rawValue) } }
        has(.altitude, e.altitude != nil)
        has(.horizontalAccuracy, e.horizontalAccuracy != nil)
        has(.verticalAccuracy, e.verticalAccuracy != nil)
        has(.speed, e.speed != nil)
        has(.course, e.course != nil)
        has(.heading, e.heading != nil)
        has(.headingTime, e.headingTime != nil)
        has(.satellites, e.satellites != nil)
        has(.hdop, e.hdop != nil)
        has(.vdop, e.vdop != nil)
        has(.pdop, e.pdop != nil)
        has(.fixMode, e.fixMode != nil)
        has(.speedAccuracy, e.speedAccuracy != nil)
        has(.courseAccuracy, e.courseAccuracy != nil)
        has(.batteryLevel, e.batteryLevel != nil)
        has(.address, e.address != nil)
        has(.label, e.label != nil)
        has(.motion, e.motion != nil)
        has(.batteryState, e.batteryState != nil)
        has(.deviceID, e.deviceID != nil)
        has(.wifi, e.wifi != nil)
        has(.marked, e.marked)
        has(.isHeadingChanged, e.isHeadingChanged)
        has(.startsSegment, e.startsSegment)
        has(.monitoring, e.monitoring != nil)
        has(.trigger, e.trigger != nil)
        has(.inRegions, e.inRegions != nil)
        has(.tag, e.tag != nil)
        has(.isPOI, e.isPOI)
        has(.attributes, e.attributes != nil)
        put(UInt32(0), &out)
        put(mask, &out)
        put(e.key ?? 0, &out)
        put(e.latitude, &out)
        put(e.longitude, &out)
        put(e.time.milliseconds, &out)
        put(Int64(e.instanceCount), &out)
        put(e.id, &out)
        if let v = e.altitude { put(v, &out) }
        if let v = e.horizontalAccuracy { put(v, &out) }
        if let v = e.verticalAccuracy { put(v, &out) }
        if let v = e.speed { put(v, &out) }
        if let v = e.course { put(v, &out) }
        if let v = e.heading { put(v, &out) }
        if let v = e.headingTime { put(v.milliseconds, &out) }
        if let v = e.satellites { put(Int64(v), &out) }
        if let v = e.hdop { put(v, &out) }
        if let v = e.vdop { put(v, &out) }
        if let v = e.pdop { put(v, &out) }
        if let v = e.fixMode { put(Int64(v.rawValue), &out) }
        if let v = e.speedAccuracy { put(v, &out) }
        if let v = e.courseAccuracy { put(v, &out) }
        if let v = e.batteryLevel { put(v, &out) }
        if let v = e.address { put(v, &out) }
        if let v = e.label { put(v, &out) }
        if let v = e.motion { put(v.joined(separator: "\u{1F}"), &out) }
        if let v = e.batteryState { put(v.rawValue, &out) }
        if let v = e.deviceID { put(v, &out) }
        if let v = e.wifi { put(v, &out) }
        if let v = e.monitoring { put(Int64(v.rawValue), &out) }
        if let v = e.trigger { put(v.rawValue, &out) }
        if let v = e.inRegions {
            // Counted, each name with its length: a name may hold any character.
            put(UInt32(v.count), &out)
            for name in v { put(name, &out) }
        }
        if let v = e.tag { put(v, &out) }
        if let v = e.attributes {
            // Counted, each key then its value: an import's untimed points keep what the phone app sent.
            put(UInt32(v.count), &out)
            for key in v.keys.sorted() {
                put(key, &out)
                put(v[key]!, &out)
            }
        }
        let size = UInt32(out.count - start)
        withUnsafeBytes(of: size) { b in for i in 0..<4 { out[start + i] = b[i] } }
    }

    /// Decodes the record at `offset`, or nil when the bytes hold no whole record there.
    static func decode(_ raw: UnsafeRawBufferPointer, at offset: Int) -> (Entry, Int)? {
        guard raw.count - offset >= 4 else { return nil }
        let size = Int(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        guard raw.count - offset >= size else { return nil }
        var p = offset + 4
        func take<T>(_: T.Type) -> T {
            defer { p += MemoryLayout<T>.size }
            return raw.loadUnaligned(fromByteOffset: p, as: T.self)
        }
        func text() -> String {
            let n = Int(take(UInt32.self))
            defer { p += n }
            return String(decoding: UnsafeRawBufferPointer(rebasing: raw[p..<(p + n)]), as: UTF8.self)
        }
        let mask = take(UInt32.self)
        func has(_ bit: Bit) -> Bool { mask & (1 << UInt32(bit.rawValue)) != 0 }
        let key = take(Int64.self)
        let latitude = take(Double.self)
        let longitude = take(Double.self)
        let time = Timestamp(milliseconds: take(Int64.self))
        let instanceCount = Int(take(Int64.self))
        var e = Entry(key: key, id: text(), latitude: latitude, longitude: longitude, time: time)
        e.instanceCount = instanceCount
        e.marked = has(.marked)
        e.isHeadingChanged = has(.isHeadingChanged)
        e.startsSegment = has(.startsSegment)
        if has(.altitude) { e.altitude = take(Double.self) }
        if has(.horizontalAccuracy) { e.horizontalAccuracy = take(Double.self) }
        if has(.verticalAccuracy) { e.verticalAccuracy = take(Double.self) }
        if has(.speed) { e.speed = take(Double.self) }
        if has(.course) { e.course = take(Double.self) }
        if has(.heading) { e.heading = take(Double.self) }
        if has(.headingTime) { e.headingTime = Timestamp(milliseconds: take(Int64.self)) }
        if has(.satellites) { e.satellites = Int(take(Int64.self)) }
        if has(.hdop) { e.hdop = take(Double.self) }
        if has(.vdop) { e.vdop = take(Double.self) }
        if has(.pdop) { e.pdop = take(Double.self) }
        if has(.fixMode) { e.fixMode = FixMode(rawValue: Int(take(Int64.self))) }
        if has(.speedAccuracy) { e.speedAccuracy = take(Double.self) }
        if has(.courseAccuracy) { e.courseAccuracy = take(Double.self) }
        if has(.batteryLevel) { e.batteryLevel = take(Double.self) }
        if has(.address) { e.address = text() }
        if has(.label) { e.label = text() }
        if has(.motion) {
            let joined = text()
            e.motion =
                joined.isEmpty
                ? [] : joined.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
        }
        if has(.batteryState) { e.batteryState = BatteryState(rawValue: text()) }
        if has(.deviceID) { e.deviceID = text() }
        if has(.wifi) { e.wifi = text() }
        if has(.monitoring) { e.monitoring = MonitoringMode(rawValue: Int(take(Int64.self))) }
        if has(.trigger) { e.trigger = ReportTrigger(rawValue: text()) }
        e.isPOI = has(.isPOI)
        if has(.inRegions) { e.inRegions = (0..<Int(take(UInt32.self))).map { _ in text() } }
        if has(.tag) { e.tag = text() }
        if has(.attributes) {
            var attributes: [String: String] = [:]
            for _ in 0..<Int(take(UInt32.self)) {
                let key = text()
                attributes[key] = text()
            }
            e.attributes = attributes
        }
        return (e, size)
    }
}
