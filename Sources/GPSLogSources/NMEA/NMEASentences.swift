// SPDX-License-Identifier: MIT

import GPSLogModel

// One parser per sentence type. Each reads its fields in order from the cursor and returns false when a field
// that matters (time, date, position) is garbage, so the sentence is counted as unparsable. Empty fields are
// normal (no fix yet) and simply contribute nothing.

extension NMEADecoder {
    static let metresPerSecondPerKnot = 1852.0 / 3600.0

    /// NMEA 2.3 mode indicators that do not describe a real position: N not valid, S simulator, M manual input.
    @inline(__always) static func isRealMode(_ mode: UInt8) -> Bool {
        mode != UInt8(ascii: "N") && mode != UInt8(ascii: "S") && mode != UInt8(ascii: "M")
    }

    /// Mode indicators of differential or RTK solutions: D differential, F float RTK, R fixed RTK, P precise.
    @inline(__always) static func isDifferentialMode(_ mode: UInt8) -> Bool {
        mode == UInt8(ascii: "D") || mode == UInt8(ascii: "F") || mode == UInt8(ascii: "R") || mode == UInt8(ascii: "P")
    }

    /// Latitude and longitude fields; nil coordinates when empty, false when garbage.
    @inline(__always) static func position(
        _ fields: inout NMEAFieldCursor
    ) -> (ok: Bool, latitude: Double?, longitude: Double?) {
        let lat = fields.next()
        let ns = fields.next()
        let lon = fields.next()
        let ew = fields.next()
        let latitude = lat.coordinate(hemisphere: ns, max: 90)
        let longitude = lon.coordinate(hemisphere: ew, max: 180)
        if latitude.isInvalid || longitude.isInvalid { return (false, nil, nil) }
        return (true, latitude.value, longitude.value)
    }

    /// `$--RMC,hhmmss.ss,A,llll.ll,a,yyyyy.yy,a,x.x,x.x,ddmmyy,x.x,a,m,s*hh`
    /// time, status, position, speed (knots), course (true), date, magnetic variation, mode (2.3+), nav status (4.1).
    mutating func rmc(_ fields: inout NMEAFieldCursor, _ emit: (SourceEvent) throws -> Void) rethrows -> Bool {
        let time = fields.next().timeOfDay
        let status = fields.next().char
        let (ok, latitude, longitude) = NMEADecoder.position(&fields)
        let speed = fields.next().magnitude
        let course = fields.next().double
        let date = fields.next()
        let variation = fields.next()
        let variationDirection = fields.next()
        let mode = fields.next().char
        guard ok, !time.isInvalid else { return false }
        var day: Int64?
        if !date.isEmpty {
            guard date.count == 6, let dd = date.digits(at: 0, 2), let mm = date.digits(at: 2, 2),
                let yy = date.digits(at: 4, 2)
            else { return false }
            // Two-digit years: 80-99 are 1980-1999 (GPS began in 1980), everything else 20xx.
            let year = yy >= 80 ? 1900 + yy : 2000 + yy
            if mm >= 1, mm <= 12, dd >= 1, dd <= Timestamp.daysIn(month: mm, year: year) {
                day = Timestamp.days(year: year, month: mm, day: dd)
            } else if status == UInt8(ascii: "A") {
                return false
            }
        }
        if let v = variation.eastWest(variationDirection) { lastVariation = v }
        guard let timeOfDay = time.value else { return true }
        try enterEpoch(timeOfDay, emit)
        // A void RMC (status V) or a simulated/invalid mode is not a position, and its date is not trusted
        // either: receivers send garbage dates while acquiring (gp-320fw cold boot).
        guard status == UInt8(ascii: "A"), NMEADecoder.isRealMode(mode) else { return true }
        if let day { try learnDate(day, emit) }
        if let latitude, let longitude {
            epoch.setPosition(latitude: latitude, longitude: longitude, rank: NMEAEpoch.rankRMC)
            if NMEADecoder.isDifferentialMode(mode) { epoch.differential = true }
        }
        if let speed { epoch.rmcSpeedKnots = speed }
        if let course { epoch.rmcCourse = course }
        return true
    }

    /// `$--GGA,hhmmss.ss,llll.ll,a,yyyyy.yy,a,q,nn,h.h,a.a,M,g.g,M,age,station*hh`
    /// time, position, quality (0 none, 1 GPS, 2 DGPS, 3 PPS, 4 RTK fixed, 5 RTK float, 6 estimated,
    /// 7 manual, 8 simulator), satellites used, HDOP, altitude above mean sea level, geoid separation, …
    mutating func gga(_ fields: inout NMEAFieldCursor, _ emit: (SourceEvent) throws -> Void) rethrows -> Bool {
        let time = fields.next().timeOfDay
        let (ok, latitude, longitude) = NMEADecoder.position(&fields)
        let quality = fields.next().int ?? 0
        let satellites = fields.next().int
        let hdop = fields.next().magnitude
        let altitude = fields.next().double
        guard ok, !time.isInvalid else { return false }
        guard let timeOfDay = time.value else { return true }
        try enterEpoch(timeOfDay, emit)
        // Quality 7 (manual input) and 8 (simulator) are not positions. Neither is a fix from zero satellites:
        // a Hemisphere compass sends quality 1 with 00 satellites while still acquiring (hemi.log), and gpsd
        // reports those epochs as mode 1 too. An empty satellite count is taken at its word.
        guard (1...6).contains(quality), satellites != 0, let latitude, let longitude else { return true }
        epoch.setPosition(latitude: latitude, longitude: longitude, rank: NMEAEpoch.rankGGA)
        if (2...5).contains(quality) { epoch.differential = true }
        if let altitude { epoch.altitude = altitude }
        if let satellites { epoch.satellites = satellites }
        if let hdop { epoch.ggaHDOP = hdop }
        return true
    }

    /// `$--GLL,llll.ll,a,yyyyy.yy,a,hhmmss.ss,A,m*hh` — position, time, status, mode (2.3+).
    mutating func gll(_ fields: inout NMEAFieldCursor, _ emit: (SourceEvent) throws -> Void) rethrows -> Bool {
        let (ok, latitude, longitude) = NMEADecoder.position(&fields)
        let time = fields.next().timeOfDay
        let status = fields.next().char
        let mode = fields.next().char
        guard ok, !time.isInvalid else { return false }
        guard let timeOfDay = time.value else { return true }  // NMEA 1.x GLL without time: cannot be placed
        try enterEpoch(timeOfDay, emit)
        guard status == UInt8(ascii: "A"), NMEADecoder.isRealMode(mode), let latitude, let longitude else {
            return true
        }
        epoch.setPosition(latitude: latitude, longitude: longitude, rank: NMEAEpoch.rankGLL)
        if NMEADecoder.isDifferentialMode(mode) { epoch.differential = true }
        return true
    }

    /// `$--VTG,x.x,T,x.x,M,x.x,N,x.x,K,m*hh` — course true, course magnetic, speed in knots and km/h, mode.
    /// The pre-2.0 form without the unit letters (`$--VTG,t,m,n,k`) is accepted too. Untimed: joins the open epoch.
    mutating func vtg(_ fields: inout NMEAFieldCursor) -> Bool {
        let trueCourse = fields.next()
        let second = fields.next()
        var knots: NMEAField
        var kilometres: NMEAField
        var mode: UInt8 = 0
        if second.char == UInt8(ascii: "T") || (second.isEmpty && trueCourse.isEmpty) {
            fields.skip(2)
            knots = fields.next()
            fields.skip(1)
            kilometres = fields.next()
            fields.skip(1)
            mode = fields.next().char
        } else {
            knots = fields.next()
            kilometres = fields.next()
        }
        guard NMEADecoder.isRealMode(mode) else { return true }
        if let c = trueCourse.double { epoch.vtgCourse = c }
        if let k = knots.magnitude {
            epoch.vtgSpeed = k * NMEADecoder.metresPerSecondPerKnot
        } else if let kmh = kilometres.magnitude {
            epoch.vtgSpeed = kmh / 3.6
        }
        return true
    }

    /// `$--GSA,a,x,s1,…,s12,p.p,h.h,v.v[,id]*hh` — selection, fix mode (1 none, 2, 3), 12 satellite slots, DOPs.
    /// Untimed: joins the open epoch (multi-constellation receivers send one per system with the same DOPs).
    mutating func gsa(_ fields: inout NMEAFieldCursor) -> Bool {
        fields.skip(1)
        let mode = fields.next().int
        fields.skip(12)
        let pdop = fields.next().magnitude
        let hdop = fields.next().magnitude
        let vdop = fields.next().magnitude
        switch mode {
        case 2: epoch.fixMode = .twoD
        case 3: epoch.fixMode = .threeD
        default: return true  // no fix: its DOPs mean nothing
        }
        if let pdop { epoch.pdop = pdop }
        if let hdop { epoch.gsaHDOP = hdop }
        if let vdop { epoch.vdop = vdop }
        return true
    }

    /// `$--GST,hhmmss.ss,rms,major,minor,orient,lat-sigma,lon-sigma,alt-sigma*hh` — error statistics in metres.
    mutating func gst(_ fields: inout NMEAFieldCursor, _ emit: (SourceEvent) throws -> Void) rethrows -> Bool {
        let time = fields.next().timeOfDay
        fields.skip(4)
        let latitudeSigma = fields.next().magnitude
        let longitudeSigma = fields.next().magnitude
        let altitudeSigma = fields.next().magnitude
        guard !time.isInvalid else { return false }
        guard let timeOfDay = time.value else { return true }
        try enterEpoch(timeOfDay, emit)
        if let a = latitudeSigma, let b = longitudeSigma {
            epoch.latitudeSigma = a
            epoch.longitudeSigma = b
        }
        if let altitudeSigma { epoch.altitudeSigma = altitudeSigma }
        return true
    }

    /// `$--ZDA,hhmmss.ss,dd,mm,yyyy,zh,zm*hh` — UTC time and date (the local zone fields are not needed).
    mutating func zda(_ fields: inout NMEAFieldCursor, _ emit: (SourceEvent) throws -> Void) rethrows -> Bool {
        let time = fields.next().timeOfDay
        let dayField = fields.next()
        let monthField = fields.next()
        let yearField = fields.next()
        guard !time.isInvalid else { return false }
        guard let timeOfDay = time.value else { return true }
        var day: Int64?
        if !dayField.isEmpty || !monthField.isEmpty || !yearField.isEmpty {
            guard let d = dayField.int, let m = monthField.int, let y = yearField.int, yearField.count == 4,
                m >= 1, m <= 12, d >= 1, d <= Timestamp.daysIn(month: m, year: y)
            else { return false }
            day = Timestamp.days(year: y, month: m, day: d)
        }
        try enterEpoch(timeOfDay, emit)
        if let day { try learnDate(day, emit) }
        return true
    }

    /// `$--HDT,x.x,T*hh` — heading, degrees true.
    mutating func hdt(_ fields: inout NMEAFieldCursor, _ emit: (SourceEvent) throws -> Void) rethrows -> Bool {
        let heading = fields.next()
        if heading.isEmpty { return true }
        guard let degrees = heading.double else { return false }
        try emitHeading(degrees, emit)
        return true
    }

    /// `$--HDG,x.x,d.d,a,v.v,a*hh` — magnetic sensor heading, deviation and variation (E positive, W negative).
    ///
    /// True heading = magnetic heading + deviation + variation. When the sentence has no variation, the latest
    /// RMC variation is used; when there is none either, the magnetic heading is taken as true (the error is the
    /// local variation, a few degrees in most places, and no better value is available from the stream).
    mutating func hdg(_ fields: inout NMEAFieldCursor, _ emit: (SourceEvent) throws -> Void) rethrows -> Bool {
        let heading = fields.next()
        let deviation = fields.next()
        let deviationDirection = fields.next()
        let variation = fields.next()
        let variationDirection = fields.next()
        if heading.isEmpty { return true }
        guard let magnetic = heading.double else { return false }
        let dev = deviation.eastWest(deviationDirection) ?? 0
        let v = variation.eastWest(variationDirection) ?? lastVariation ?? 0
        try emitHeading(magnetic + dev + v, emit)
        return true
    }
}
