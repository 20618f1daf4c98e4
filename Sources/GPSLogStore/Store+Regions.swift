// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite

extension Store {
    // MARK: - Regions

    /// Adds a region, a circle or a polygon (`Region.outline`); its name must be new. Its creation time is kept
    /// unless another region has the same second, or a transition of a removed one does: OwnTracks knows a region by
    /// that second (the waypoint's `tst`, each transition's `wtst`; the Recorder keeps one waypoint file per second),
    /// so it then becomes one second after the latest used (two `region add` in a second, a file of regions).
    /// - Throws: `StoreError.invalidRegion` for a name in use or a value out of range, naming the rule.
    @discardableResult
    public func addRegion(_ region: Region) throws -> Region {
        var region = region
        region.name = region.name.trimmedWhitespace.truncated(to: TextLimit.label)
        return try sqlite {
            region.created = try unusedRegionSecond(region.created, regionID: region.regionID)
            do {
                try database.run(
                    """
                    INSERT INTO Regions (Name, Latitude, Longitude, Radius, RegionID, CreatedAt, Outline)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(region.name), .real(region.latitude),
                        .real(region.longitude), .real(region.radius), .text(region.regionID),
                        .integer(region.created.milliseconds), SQLiteValue(region.outline),
                    ])
            } catch let error as SQLiteError where error.isConstraintViolation {
                throw StoreError.invalidRegion(name: region.name, reason: StoreError.regionReason(error))
            }
            var stored = region
            stored.key = database.lastInsertRowID
            return stored
        }
    }

    /// `created`, or when its second is taken one second after the latest second used by a region or by a
    /// transition of gpslog's own sessions through another region (a removed region's second stays taken).
    private func unusedRegionSecond(_ created: Timestamp, regionID: String) throws -> Timestamp {
        let second = created.milliseconds.wholeSeconds
        let taken =
            try database.scalar(
                """
                SELECT EXISTS (SELECT 1 FROM Regions WHERE CreatedAt >= ?1 * 1000 AND CreatedAt < (?1 + 1) * 1000)
                    OR EXISTS (SELECT 1 FROM Transitions
                        WHERE RegionCreatedAt >= ?1 * 1000 AND RegionCreatedAt < (?1 + 1) * 1000
                            AND RegionID IS NOT ?2
                            AND Session IN (SELECT ID FROM Sessions WHERE Receiver IS NULL))
                """, [.integer(second), .text(regionID)])?.int64 == 1
        guard taken else { return created }
        let latest =
            try database.scalar(
                """
                SELECT MAX(COALESCE((SELECT MAX(CreatedAt) FROM Regions), 0),
                    COALESCE((SELECT MAX(RegionCreatedAt) FROM Transitions
                        WHERE Session IN (SELECT ID FROM Sessions WHERE Receiver IS NULL)), 0))
                """)?.int64 ?? 0
        return Timestamp(milliseconds: (max(latest.wholeSeconds, second) + 1) * 1000)
    }

    /// Removes a region by name; past transitions keep its name. Returns false when there is none.
    @discardableResult
    public func removeRegion(named name: String) throws -> Bool {
        try sqlite {
            try database.run("DELETE FROM Regions WHERE Name = ?", [.text(name.trimmedWhitespace)])
            return database.changes == 1
        }
    }

    /// Every region, by name, polygons with their outlines.
    public func regions() throws -> [Region] {
        try sqlite {
            let s = try database.cachedStatement(
                "SELECT Key, Name, Latitude, Longitude, Radius, RegionID, CreatedAt, Outline FROM Regions ORDER BY Name"
            )
            defer { s.reset() }
            var regions: [Region] = []
            while try s.step() {
                regions.append(
                    Region(
                        key: s.requiredInt64(at: 0), name: s.string(at: 1) ?? "", latitude: s.requiredDouble(at: 2),
                        longitude: s.requiredDouble(at: 3), radius: s.requiredDouble(at: 4),
                        regionID: s.string(at: 5) ?? "", created: Timestamp(milliseconds: s.requiredInt64(at: 6)),
                        outline: s.string(at: 7)))
            }
            return regions
        }
    }

    // MARK: - Transitions

    /// Stores a transition of `sessionID`, with its trigger; a region that is not known (`regionIsKnown` false: an
    /// imported transition whose waypoint the file did not hold) is stored without centre and radius, and an empty
    /// `regionID` as none.
    @discardableResult
    public func addTransition(_ t: Transition, to sessionID: String) throws -> Int64 {
        func known(_ value: Double) -> SQLiteValue { t.regionIsKnown ? .real(value) : .null }
        return try sqlite {
            try database.run(
                """
                INSERT INTO Transitions (Session, RegionName, RegionID, RegionCreatedAt, RegionLatitude, RegionLongitude,
                    RegionRadius, Event, TimeStamp, Latitude, Longitude, HorizontalAccuracy, ReportTrigger)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(sessionID), .text(t.region.name),
                    t.region.regionID.isEmpty ? .null : .text(t.region.regionID),
                    .integer(t.region.created.milliseconds), known(t.region.latitude), known(t.region.longitude),
                    known(t.region.radius), .text(t.event.rawValue), .integer(t.time.milliseconds), .real(t.latitude),
                    .real(t.longitude), SQLiteValue(t.horizontalAccuracy), SQLiteValue(t.trigger?.rawValue),
                ])
            return database.lastInsertRowID
        }
    }

    /// A session's transitions in time order (a few a day: read whole).
    public func transitions(of sessionID: String) throws -> [Transition] {
        try sqlite {
            let s = try database.cachedStatement(
                """
                SELECT Key, RegionName, RegionID, RegionCreatedAt, RegionLatitude, RegionLongitude, RegionRadius, Event,
                    TimeStamp, Latitude, Longitude, HorizontalAccuracy, ReportTrigger
                FROM Transitions WHERE Session = ? ORDER BY TimeStamp, Key
                """)
            defer { s.reset() }
            try s.bind(sessionID, at: 1)
            var transitions: [Transition] = []
            while try s.step() {
                let (latitude, longitude) = (s.requiredDouble(at: 9), s.requiredDouble(at: 10))
                // A received transition whose device never sent the region: its geometry is unknown, said by
                // `regionIsKnown`, and the region stands at the transition's place with no radius.
                let centre = s.double(at: 4).flatMap { lat in s.double(at: 5).map { (lat, $0) } }
                let region = Region(
                    name: s.string(at: 1) ?? "", latitude: centre?.0 ?? latitude, longitude: centre?.1 ?? longitude,
                    radius: s.double(at: 6) ?? 0, regionID: s.string(at: 2) ?? "",
                    created: Timestamp(milliseconds: s.requiredInt64(at: 3)))
                var t = Transition(
                    key: s.requiredInt64(at: 0), region: region,
                    event: RegionEvent(rawValue: s.string(at: 7) ?? "") ?? .enter,
                    time: Timestamp(milliseconds: s.requiredInt64(at: 8)), latitude: latitude, longitude: longitude,
                    horizontalAccuracy: s.double(at: 11),
                    trigger: s.string(at: 12).flatMap(TransitionTrigger.init(rawValue:)))
                t.regionIsKnown = centre != nil && s.double(at: 6) != nil
                transitions.append(t)
            }
            return transitions
        }
    }
}

extension Int64 {
    /// Milliseconds as whole seconds, rounded down (OwnTracks' `tst`).
    fileprivate var wholeSeconds: Int64 { self >= 0 ? self / 1000 : (self - 999) / 1000 }
}
