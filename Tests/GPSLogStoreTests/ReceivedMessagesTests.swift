// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSQLite
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// What `serve` stores of OwnTracks beside locations (`Store+Received.swift`, migration 17), against real SQLite files.
@Suite(.ownThreads)
struct ReceivedMessagesTests {
    static func seconds(_ s: Int64) -> Timestamp { Timestamp(milliseconds: s * 1000) }

    static func transition(
        _ event: RegionEvent = .enter, at tst: Int64 = 1_709_310_000, rid: String? = "r1", desc: String? = "Office",
        wtst: Int64 = 1_709_300_000, trigger: TransitionTrigger? = .circular
    ) -> ReceivedTransition {
        ReceivedTransition(
            event: event, time: seconds(tst), latitude: 52.37, longitude: 4.89, horizontalAccuracy: 8, regionName: desc,
            regionID: rid, regionCreated: seconds(wtst), trigger: trigger)
    }

    static func waypoint(_ rid: String?, _ desc: String, tst: Int64, radius: Double? = 100) -> ReceivedWaypoint {
        ReceivedWaypoint(
            regionID: rid, description: desc, latitude: 52.37, longitude: 4.89, radius: radius, created: seconds(tst))
    }

    /// (RegionLatitude, RegionRadius, ReportTrigger) of every transition, in time order.
    static func regions(_ store: Store) throws -> [[SQLiteValue]] {
        let s = try store.database.makeStatement(
            "SELECT RegionLatitude, RegionRadius, ReportTrigger FROM Transitions ORDER BY TimeStamp, Key")
        var rows: [[SQLiteValue]] = []
        while try s.step() { rows.append([s.value(at: 0), s.value(at: 1), s.value(at: 2)]) }
        return rows
    }

    @Test func aTransitionIsStoredOnceWithItsWaypointsRegion() throws {
        try withTemporaryStore { store, _ in
            let now = Self.seconds(1_709_400_000)
            let w = try store.storeReceivedWaypoints(
                [Self.waypoint("r1", "Office", tst: 1_709_300_000)], device: "jane/phone", at: now)
            #expect(w == WaypointOutcome(stored: 1, unchanged: 0))
            #expect(try store.storeReceivedTransition(Self.transition(), device: "jane/phone").stored == 1)
            #expect(try store.storeReceivedTransition(Self.transition(), device: "jane/phone").duplicates == 1)
            // The same time and region, but leaving: another transition. Without rid: known by wtst.
            #expect(try store.storeReceivedTransition(Self.transition(.leave), device: "jane/phone").stored == 1)
            let noRID = Self.transition(
                at: 1_709_320_000, rid: nil, desc: "Hut", wtst: 1_709_305_000, trigger: .location)
            #expect(try store.storeReceivedTransition(noRID, device: "jane/phone").stored == 1)
            #expect(try store.storeReceivedTransition(noRID, device: "jane/phone").duplicates == 1)
            var other = noRID
            other.regionCreated = Self.seconds(1_709_306_000)
            #expect(try store.storeReceivedTransition(other, device: "jane/phone").stored == 1)
            // Its region's waypoint comes later: the two transitions through it get its centre and radius.
            _ = try store.storeReceivedWaypoints(
                [Self.waypoint(nil, "Hut", tst: 1_709_305_000, radius: 30)], device: "jane/phone", at: now)
            #expect(
                try Self.regions(store) == [
                    [.real(52.37), .real(100), .text("c")], [.real(52.37), .real(100), .text("c")],
                    [.real(52.37), .real(30), .text("l")], [.null, .null, .text("l")],
                ])

            let session = try store.resolveSession("jane/phone")
            #expect(session.end == Self.seconds(1_709_320_000) && session.start == Self.seconds(1_709_310_000))
            let read = try store.transitions(of: session.id)
            #expect(read.map(\.trigger) == [.circular, .circular, .location, .location])
            #expect(read.map(\.region.regionID) == ["r1", "r1", "", ""])
            #expect(read[2].region.name == "Hut" && read[2].region.created == Self.seconds(1_709_305_000))
            // The last one's region never came: known as unknown, not as a region at 0, 0.
            #expect(read.map(\.regionIsKnown) == [true, true, true, false])
            #expect(read[3].region.latitude == read[3].latitude && read[3].region.radius == 0)
            #expect(read[2].region.latitude == 52.37 && read[2].region.radius == 30)
        }
    }

    @Test func aWaypointIsKnownByItsRidAndALaterTstReplacesIt() throws {
        try withTemporaryStore { store, _ in
            let now = Self.seconds(1_709_400_000)
            func put(_ w: ReceivedWaypoint, _ device: String = "jane/phone") throws -> WaypointOutcome {
                try store.storeReceivedWaypoints([w], device: device, at: now)
            }
            #expect(try put(Self.waypoint("r1", "Office", tst: 1_000_000_000)).stored == 1)
            #expect(try put(Self.waypoint("r1", "Office", tst: 1_000_000_000)).unchanged == 1)
            #expect(try put(Self.waypoint("r1", "Old office", tst: 900_000_000)).unchanged == 1)
            #expect(try put(Self.waypoint("r1", "New office", tst: 1_100_000_000)).stored == 1)
            #expect(try put(Self.waypoint(nil, "Beach", tst: 1_000_000_000)).stored == 1)
            #expect(try put(Self.waypoint(nil, "Beach", tst: 1_000_000_000)).unchanged == 1)
            #expect(try put(Self.waypoint("r1", "Office", tst: 1_000_000_000), "rob/phone").stored == 1)
            let all = try store.receivedWaypoints()
            #expect(all.map(\.device) == ["jane/phone", "jane/phone", "rob/phone"])
            #expect(all.map(\.waypoint.description) == ["Beach", "New office", "Office"])
            #expect(try store.receivedWaypoints(device: "rob/phone").count == 1)
            // Not the regions gpslog monitors.
            #expect(try store.regions().isEmpty)
        }
    }

    @Test func cardsAndLastWillsKeepTheLatestAndListTheDevice() throws {
        try withTemporaryStore { store, _ in
            let card = DeviceCard(name: "Jane", face: [0x89, 0x50, 0x4E, 0x47], trackerID: "JP")
            #expect(try store.storeReceivedCard(card, device: "jane/phone", at: Self.seconds(1_709_400_000)))
            #expect(try !store.storeReceivedCard(card, device: "jane/phone", at: Self.seconds(1_709_400_100)))
            var renamed = card
            renamed.name = "Jane P."
            #expect(try store.storeReceivedCard(renamed, device: "jane/phone", at: Self.seconds(1_709_400_200)))
            #expect(
                try store.storeLastWill(
                    connected: Self.seconds(1_709_390_000), device: "jane/phone", at: Self.seconds(1_709_400_300)))
            #expect(
                try !store.storeLastWill(
                    connected: Self.seconds(1_709_390_000), device: "jane/phone", at: Self.seconds(1_709_400_400)))
            _ = try store.storeReceived([
                ReceivedBatch(
                    receiver: "owntracks:rob/phone", name: "rob/phone", start: Self.seconds(1_709_300_000), mode: nil,
                    entries: [Entry(id: "", latitude: 52.1, longitude: 5.1, time: Self.seconds(1_709_300_000))]),
                ReceivedBatch(
                    receiver: "overland:iphone", name: "iphone", start: Self.seconds(1_709_300_000), mode: nil,
                    entries: [Entry(id: "", latitude: 52.1, longitude: 5.1, time: Self.seconds(1_709_300_000))]),
            ])
            let devices = try store.receivedDevices()
            #expect(devices.map(\.device) == ["jane/phone", "rob/phone"], "OwnTracks devices only")
            #expect(devices[0].card == renamed && devices[0].cardReceived == Self.seconds(1_709_400_200))
            #expect(devices[0].lastWill == Self.seconds(1_709_400_300))
            #expect(devices[0].lastWillConnected == Self.seconds(1_709_390_000) && devices[0].session == nil)
            #expect(devices[1].session?.name == "rob/phone" && devices[1].lastLocation == Self.seconds(1_709_300_000))
            #expect(devices[1].card == nil && devices[1].waypoints == 0)
        }
    }

    /// A database of version 16 holding a recorded transition migrates to 17 keeping it (as circular) and its index.
    @Test func transitionsSurviveTheRebuild() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/v16.sqlite"
            do {
                let db = try Database(path: path)
                defer { db.close() }
                try Migrations.migrate(db, upTo: 16)
                try db.execute(
                    """
                    INSERT INTO Sessions (ID, StartTime, EndTime, Name)
                    VALUES ('00000000-0000-4000-8000-000000000001', 1000, 5000, 'Hike');
                    INSERT INTO Transitions (Session, RegionName, RegionID, RegionCreatedAt, RegionLatitude,
                        RegionLongitude, RegionRadius, Event, TimeStamp, Latitude, Longitude, HorizontalAccuracy)
                    VALUES ('00000000-0000-4000-8000-000000000001', 'Hut', 'h1', 500, 46.5, 7.5, 150, 'enter', 2000,
                        46.5001, 7.5001, 4);
                    """)
            }
            let store = try Store(path: path)
            defer { store.close() }
            let session = try store.resolveSession("Hike")
            let t = try #require(try store.transitions(of: session.id).first)
            #expect(
                t.region
                    == Region(
                        key: nil, name: "Hut", latitude: 46.5, longitude: 7.5, radius: 150, regionID: "h1",
                        created: Timestamp(milliseconds: 500)))
            #expect(t.trigger == .circular && t.time.milliseconds == 2000 && t.horizontalAccuracy == 4)
            #expect(
                try store.database.scalar(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'Transitions_Session_TimeStamp'"
                )?
                .int64 == 1)
            #expect(
                try store.database.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'Transitions_017'")?.int64
                    == 0)
            // Deleting the session still takes its transitions with it (the foreign key survived the rebuild).
            try store.deleteSession(id: session.id)
            #expect(try store.database.scalar("SELECT count(*) FROM Transitions")?.int64 == 0)
            // gpslog's own regions still record 'c' without naming the column.
            let again = try store.createSession(name: "Walk", start: Timestamp(milliseconds: 0))
            try store.addTransition(
                Transition(
                    region: Region(
                        name: "Hut", latitude: 46.5, longitude: 7.5, radius: 150, regionID: "h1",
                        created: Timestamp(milliseconds: 500)),
                    event: .leave, time: Timestamp(milliseconds: 3000), latitude: 46.5, longitude: 7.5,
                    horizontalAccuracy: nil),
                to: again.id)
            #expect(try store.database.scalar("SELECT ReportTrigger FROM Transitions")?.string == "c")
        }
    }
}
