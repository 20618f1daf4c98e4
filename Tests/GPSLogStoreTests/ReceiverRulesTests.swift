// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// The receiver's one rule set (`ReceiverRules`), which SQLite's store and PostgreSQL's both follow: given a message
/// and what the store holds, what to write.
@Suite(.ownThreads)
struct ReceiverRulesTests {
    static func seconds(_ s: Int64) -> Timestamp { Timestamp(milliseconds: s * 1000) }

    static func waypoint(_ rid: String?, tst: Int64, radius: Double? = 100) -> ReceivedWaypoint {
        ReceivedWaypoint(
            regionID: rid, description: "Office", latitude: 52.37, longitude: 4.89, radius: radius,
            created: seconds(tst))
    }

    @Test func devicesAndSessionsAreKeyedAndNamedAlike() {
        #expect(ReceiverRules.deviceKey("jane/phone") == "owntracks:jane/phone")
        let long = String(repeating: "d", count: TextLimit.deviceID + 200)
        #expect(ReceiverRules.deviceKey(long).count == TextLimit.deviceID + 64)
        #expect(ReceiverRules.deviceKey(long) == ReceiverRules.sessionKey("owntracks:" + long))
        #expect(ReceiverRules.newSessionName("  jane/phone ", receiver: "owntracks:jane/phone") == "jane/phone")
        #expect(ReceiverRules.newSessionName(" ", receiver: "owntracks:jane/phone") == "owntracks:jane/phone")
    }

    @Test func aBatchKeepsOneLocationPerTimeAndPlaceThatTheSessionLacks() {
        var entries = makeEntries(count: 4)
        entries[2] = entries[0]  // sent twice in one batch
        entries[3].id = ""
        let stored = ReceivedPlace(entries[1])
        let fresh = ReceiverRules.freshLocations(entries.reversed()) { $0 == stored }
        #expect(fresh.map(ReceivedPlace.init) == [entries[0], entries[3]].map(ReceivedPlace.init))
        #expect(fresh.allSatisfy { !$0.id.isEmpty } && fresh[0].id == entries[0].id)
        #expect(Identifier.isUUID(fresh[1].id))
    }

    @Test func aTransitionTakesItsNameAndAreaFromItselfThenItsWaypoint() {
        var t = ReceivedTransition(
            event: .enter, time: Self.seconds(1_709_310_000), latitude: 52.37, longitude: 4.89, horizontalAccuracy: 8,
            regionName: nil, regionID: "r1", regionCreated: Self.seconds(1_709_300_000), trigger: .circular)
        let w = Self.waypoint("r1", tst: 1_709_300_000)
        #expect(ReceiverRules.transitionRegion(t, waypoint: nil).name == "r1")
        #expect(ReceiverRules.transitionRegion(t, waypoint: nil).area == nil)
        let placed = ReceiverRules.transitionRegion(t, waypoint: w)
        #expect(placed.name == "Office" && placed.area?.radius == 100 && placed.area?.latitude == 52.37)
        #expect(ReceiverRules.transitionRegion(t, waypoint: Self.waypoint("r1", tst: 1, radius: 0)).area == nil)
        t.regionName = "Work"
        #expect(ReceiverRules.transitionRegion(t, waypoint: w).name == "Work")
    }

    @Test func aLaterWaypointOfARidReplacesTheKeptOneAndARepeatChangesNothing() {
        let kept = Self.waypoint("r1", tst: 100)
        #expect(ReceiverRules.waypointWrite(kept, kept: nil) == .insert)
        #expect(ReceiverRules.waypointWrite(Self.waypoint("r1", tst: 101), kept: kept) == .replace)
        #expect(ReceiverRules.waypointWrite(Self.waypoint("r1", tst: 100), kept: kept) == .unchanged)
        #expect(ReceiverRules.waypointWrite(Self.waypoint("r1", tst: 99), kept: kept) == .unchanged)
        // Without a rid the tst is the waypoint's identity: the kept one of that tst is the same waypoint.
        #expect(
            ReceiverRules.waypointWrite(Self.waypoint(nil, tst: 100), kept: Self.waypoint(nil, tst: 100)) == .unchanged)
    }

    @Test func aVisitsSecondRecordGivesItsDepartureOnce() {
        let arrival = Self.seconds(1_000)
        let departure = Self.seconds(2_000)
        let arrived = Visit(latitude: 52, longitude: 4, horizontalAccuracy: 10, arrival: arrival, departure: nil)
        var left = arrived
        left.departure = departure
        #expect(ReceiverRules.visitWrite(arrived, kept: nil) == .add)
        #expect(ReceiverRules.visitWrite(left, kept: (nil, nil)) == .fill(departure: departure, name: nil))
        #expect(ReceiverRules.visitWrite(arrived, kept: (nil, nil)) == .unchanged)
        #expect(ReceiverRules.visitWrite(left, kept: (departure, nil)) == .unchanged)
        #expect(ReceiverRules.visitWrite(left, kept: (Self.seconds(3_000), nil)) == .unchanged)
    }

    @Test func aNameTheSenderGaveLaterFillsTheVisitButNeverReplacesOne() {
        let departure = Self.seconds(2_000)
        var named = Visit(
            latitude: 52, longitude: 4, horizontalAccuracy: 10, arrival: Self.seconds(1_000), departure: nil)
        named.name = "  Bakery  "
        // Cut as every stored name is (`Store.placeName`).
        #expect(ReceiverRules.visitWrite(named, kept: (nil, nil)) == .fill(departure: nil, name: "Bakery"))
        named.departure = departure
        #expect(ReceiverRules.visitWrite(named, kept: (nil, nil)) == .fill(departure: departure, name: "Bakery"))
        #expect(ReceiverRules.visitWrite(named, kept: (departure, nil)) == .fill(departure: nil, name: "Bakery"))
        // A name given on this server (`visit rename`) stays.
        #expect(ReceiverRules.visitWrite(named, kept: (departure, "Home")) == .unchanged)
    }
}
