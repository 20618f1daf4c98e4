// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// Google's location history in each of its layouts, written for these tests from the layouts' published
/// descriptions (each fixture says which), imports with the right points, times, columns and visits.
@Suite(.ownThreads)
struct GoogleImportTests {
    /// Takeout's Records.json as of 2022: the record example of locationhistoryformat.com's reference
    /// (https://locationhistoryformat.com/reference/records, from its Records.schema.json: `timestamp`, `latitudeE7`,
    /// `longitudeE7`, `accuracy`, `velocity`, `heading`, `altitude`, `verticalAccuracy`, `source`, `deviceTag`,
    /// `platformType`) and its `activity` example (guesses of `type` and `confidence`), plus a record with no
    /// position, which the converters skip.
    static let records = """
        {
          "locations": [{
            "timestamp": "2022-01-12T17:18:24.190Z",
            "latitudeE7": 414216106,
            "longitudeE7": 21684775,
            "accuracy": 20,
            "velocity": 10,
            "heading": 270,
            "altitude": 150,
            "verticalAccuracy": 10,
            "activity": [{
              "activity": [{ "type": "IN_VEHICLE", "confidence": 62 }, { "type": "ON_FOOT", "confidence": 89 }],
              "timestamp": "2022-01-12T17:18:26.751Z"
            }, {
              "activity": [{ "type": "STILL", "confidence": 100 }],
              "timestamp": "2022-01-12T17:19:00.000Z"
            }],
            "source": "WIFI",
            "deviceTag": 1234567890,
            "platformType": "ANDROID"
          }, {
            "timestamp": "2022-01-12T17:20:00Z",
            "latitudeE7": 414220000,
            "longitudeE7": 21690000,
            "accuracy": 5,
            "source": "GPS"
          }, {
            "timestamp": "2022-01-12T17:21:00Z",
            "activity": [{ "activity": [{ "type": "STILL", "confidence": 100 }], "timestamp": "2022-01-12T17:21:00Z" }]
          }]
        }
        """

    /// Records.json before 2022: `timestampMs` (Unix milliseconds as a string) and camel-case activity types, as in
    /// the GoogleTakeoutParser wiki's 2019 example (https://github.com/Code4Myself GoogleTakeoutParser, "Location
    /// History"); the latitude is one of the overflowed values gis.stackexchange question 318918 and
    /// james-elliot/googlemaps quote (4233738877 for -6.1228419), which Scarygami's location-history-json-converter
    /// reads by taking 2^32 off values over 1800000000.
    static let oldRecords = """
        {
          "locations" : [ {
            "timestampMs" : "1486110600090",
            "latitudeE7" : 4233738877,
            "longitudeE7" : 1066510714,
            "accuracy" : 8
          }, {
            "timestampMs" : "1486105895000",
            "latitudeE7" : 356617327,
            "longitudeE7" : 1396785506,
            "accuracy" : 8,
            "velocity" : 0,
            "heading" : 145,
            "altitude" : 98,
            "activity" : [ {
              "timestampMs" : "1486105892533",
              "activity" : [ { "type" : "still", "confidence" : 75 }, { "type" : "onFoot", "confidence" : 10 } ]
            } ]
          } ]
        }
        """

    /// A Semantic Location History month: the `activitySegment` example of locationhistoryformat.com's
    /// Semantic.schema.json (https://locationhistoryformat.com/reference/semantic: start and end locations, a
    /// `duration`, `activityType` IN_BUS, `waypointPath`, `simplifiedRawPath` points with `timestamp`), and a
    /// `placeVisit` with the schema's `location` example (La Sagrada Familia, an address on three lines), a
    /// `duration`, `centerLatE7`/`centerLngE7` and a child visit.
    static let semantic = """
        {
          "timelineObjects": [{
            "placeVisit": {
              "location": {
                "latitudeE7": 414036299,
                "longitudeE7": 21743558,
                "placeId": "ChIJk_s92NyipBIRUMnDG8Kq2Js",
                "address": "C/ de Mallorca, 401\\n08013 Barcelona\\nEspanya",
                "name": "La Sagrada Familia",
                "semanticType": "TYPE_SEARCHED_ADDRESS",
                "sourceInfo": { "deviceTag": 1234567890 },
                "locationConfidence": 87.07311,
                "calibratedProbability": 76.20023
              },
              "duration": { "startTimestamp": "2022-03-03T10:41:08.315Z", "endTimestamp": "2022-03-03T12:22:24Z" },
              "placeConfidence": "HIGH_CONFIDENCE",
              "centerLatE7": 414036500,
              "centerLngE7": 21743800,
              "childVisits": [{ "location": { "latitudeE7": 414036000, "longitudeE7": 21743000 } }]
            }
          }, {
            "activitySegment": {
              "startLocation": { "latitudeE7": 414083590, "longitudeE7": 21704229, "sourceInfo": { "deviceTag": 1 } },
              "endLocation": { "latitudeE7": 413961889, "longitudeE7": 21536695, "sourceInfo": { "deviceTag": 1 } },
              "duration": { "startTimestamp": "2022-03-03T12:22:24Z", "endTimestamp": "2022-03-03T12:43:34Z" },
              "distance": 2640,
              "activityType": "IN_BUS",
              "confidence": "HIGH",
              "activities": [{ "activityType": "IN_BUS", "probability": 85.6847882270813 }],
              "waypointPath": {
                "waypoints": [{ "latE7": 416119834, "lngE7": 21768624 }, { "latE7": 416117012, "lngE7": 21899302 }],
                "source": "INFERRED", "distanceMeters": 396.34176716755843, "travelMode": "WALK"
              },
              "simplifiedRawPath": {
                "points": [
                  { "latE7": 414032766, "lngE7": 21641819, "accuracyMeters": 10, "timestamp": "2022-03-03T12:27:48Z" },
                  { "latE7": 414016705, "lngE7": 21661614, "accuracyMeters": 13, "timestamp": "2022-03-03T12:30:04Z" }
                ],
                "source": "INFERRED", "distanceMeters": 2413.400132766728
              }
            }
          }]
        }
        """

    /// The Android Timeline export (2024 on), as nabedroid/google-timeline-viewer's README documents it
    /// (`semanticSegments` with `startTime`/`endTime` carrying their offset, `timelinePath` points `"35.1234567°,
    /// 139.1234567°"` with a `time`, a `visit` with `hierarchyLevel` and a `topCandidate` whose `placeLocation` is
    /// `{"latLng": ...}`; `rawSignals` of `position` with `LatLng`, `accuracyMeters`, `altitudeMeters`, `source`,
    /// `timestamp`, `speedMetersPerSecond`, of `wifiScan` and of `activityRecord`; `userLocationProfile`), as
    /// reitti's GoogleAndroidTimelineImporter reads it. The raw signal comes after the segments, and before them in
    /// time.
    static let android = """
        {
          "semanticSegments": [{
            "startTime": "2024-05-01T08:00:00.000+02:00",
            "endTime": "2024-05-01T10:00:00.000+02:00",
            "startTimeTimezoneUtcOffsetMinutes": 120,
            "endTimeTimezoneUtcOffsetMinutes": 120,
            "timelinePath": [
              { "point": "52.3702156°, 4.8951680°", "time": "2024-05-01T08:04:00.000+02:00" },
              { "point": "52.3710000°, 4.8970000°", "time": "2024-05-01T08:10:00.000+02:00" }
            ]
          }, {
            "startTime": "2024-05-01T08:20:00.000+02:00",
            "endTime": "2024-05-01T17:30:00.000+02:00",
            "visit": {
              "hierarchyLevel": 0,
              "probability": 0.93,
              "topCandidate": {
                "placeId": "ChIJVXealLU_xkcRja_At0z9AGY",
                "semanticType": "WORK",
                "probability": 0.88,
                "placeLocation": { "latLng": "52.3731000°, 4.8926000°" }
              }
            }
          }, {
            "startTime": "2024-05-01T08:20:00.000+02:00",
            "endTime": "2024-05-01T17:30:00.000+02:00",
            "visit": {
              "hierarchyLevel": 1,
              "probability": 0.5,
              "topCandidate": { "semanticType": "UNKNOWN", "placeLocation": { "latLng": "52.3731500°, 4.8926500°" } }
            }
          }],
          "rawSignals": [{
            "position": {
              "LatLng": "52.3702100°, 4.8951600°",
              "accuracyMeters": 12,
              "altitudeMeters": 4.5,
              "source": "GPS",
              "timestamp": "2024-05-01T07:58:30.000+02:00",
              "speedMetersPerSecond": 1.25
            }
          }, {
            "wifiScan": { "deliveryTime": "2024-05-01T08:03:31.000+02:00", "devicesRecords": [{ "mac": 1, "rawRssi": -50 }] }
          }, {
            "activityRecord": {
              "probableActivities": [{ "type": "STILL", "confidence": 0.9 }], "timestamp": "2024-05-01T08:03:31.000+02:00"
            }
          }],
          "userLocationProfile": {
            "frequentPlaces": [{ "placeId": "x", "placeLocation": "52.1°, 5.2°", "label": "HOME" }]
          }
        }
        """

    /// The iOS Timeline export: a top-level array of segments, positions `"geo:lat,lon"`, numbers as strings, path
    /// times as `durationMinutesOffsetFromStartTime`, as reitti's GoogleIOSTimelineImporter and its IOSSemanticSegment
    /// read it (dedicatedcode/reitti), and as the field list in a public iOS-export viewer names them
    /// (`[].visit.topCandidate.placeLocation`, `[].activity.start`, "geo:34.099208,-118.259178").
    static let ios = """
        [
          {
            "endTime": "2024-05-01T10:00:00.000+02:00",
            "startTime": "2024-05-01T08:00:00.000+02:00",
            "timelinePath": [
              { "point": "geo:52.370216,4.895168", "durationMinutesOffsetFromStartTime": "4" },
              { "point": "geo:52.371000,4.897000", "durationMinutesOffsetFromStartTime": "10" }
            ]
          },
          {
            "endTime": "2024-05-01T17:30:00.000+02:00",
            "startTime": "2024-05-01T08:20:00.000+02:00",
            "visit": {
              "hierarchyLevel": "0",
              "probability": "0.930000",
              "topCandidate": {
                "probability": "0.880000",
                "semanticType": "Work",
                "placeID": "ChIJVXealLU_xkcRja_At0z9AGY",
                "placeLocation": "geo:52.373100,4.892600"
              }
            }
          },
          {
            "endTime": "2024-05-01T18:00:00.000+02:00",
            "startTime": "2024-05-01T17:30:00.000+02:00",
            "activity": {
              "probability": "0.990000",
              "end": "geo:52.360000,4.880000",
              "topCandidate": { "type": "walking", "probability": "0.990000" },
              "distanceMeters": "1700.000000",
              "start": "geo:52.373100,4.892600"
            }
          }
        ]
        """

    /// Imports `text` as a file named `name` into a fresh store; `check` gets the results, the store and the notes.
    static func imported(
        _ text: String, name: String, splitByDay: TimeZone? = nil,
        _ check: ([ImportResult], Store, [String]) throws -> Void
    ) throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/" + name
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(try ImportFormat.detect(path: path) == .google)
            try withTemporaryStore { store, _ in
                nonisolated(unsafe) var notes: [String] = []
                var importer = FileImporter()
                importer.options.notes = { notes.append($0) }
                importer.options.splitByDay = splitByDay
                let results = try importer.importFile(path, into: store)
                try check(results, store, notes)
            }
        }
    }

    static func entries(_ store: Store, _ result: ImportResult) throws -> [Entry] {
        var out: [Entry] = []
        try store.entries(of: result.session.id).forEach { out.append($0) }
        return out
    }

    @Test func recordsMapToTheColumnsThatMeanTheSame() throws {
        try Self.imported(Self.records, name: "Records.json") { results, store, notes in
            #expect(results.count == 1 && results[0].session.name == "Records" && results[0].entries == 2)
            let e = try Self.entries(store, results[0])
            #expect(e.count == 2)
            #expect(e[0].latitude == 41.4216106 && e[0].longitude == 2.1684775)
            #expect(e[0].time == Timestamp(iso8601: "2022-01-12T17:18:24.190Z"))
            #expect(e[0].horizontalAccuracy == 20 && e[0].verticalAccuracy == 10 && e[0].altitude == 150)
            #expect(e[0].speed == 10 && e[0].course == 270 && e[0].deviceID == "1234567890")
            #expect(e[0].motion == ["walking"])  // the first guess's most confident: ON_FOOT 89
            #expect(e[1].time == Timestamp(iso8601: "2022-01-12T17:20:00Z") && e[1].motion == nil)
            #expect(results[0].session.start == e[0].time && results[0].session.end == e[1].time)
            #expect(notes == ["skipped 1 location(s) without a position or a time"])
        }
    }

    @Test func oldRecordsReadMillisecondsAndOverflowedLatitudes() throws {
        try Self.imported(Self.oldRecords, name: "Location History.json") { results, store, notes in
            let e = try Self.entries(store, results[0])
            #expect(e.count == 2)
            // In time order: the file's second record is the earlier.
            #expect(e[0].time == Timestamp(milliseconds: 1_486_105_895_000) && e[0].motion == ["stationary"])
            #expect(e[0].latitude == 35.6617327 && e[0].longitude == 139.6785506 && e[0].course == 145)
            #expect(e[1].time == Timestamp(milliseconds: 1_486_110_600_090))
            #expect(e[1].latitude == -6.1228419 && e[1].longitude == 106.6510714)
            #expect(results[0].session.start == e[0].time)  // moved back from the first record's time
            #expect(try store.session(id: results[0].session.id)?.start == e[0].time)
            #expect(notes.contains { $0.hasPrefix("read 1 latitudeE7/longitudeE7 value(s) over 1800000000") })
        }
    }

    @Test func semanticHistoryGivesPathPointsAndVisits() throws {
        try Self.imported(Self.semantic, name: "2022_MARCH.json") { results, store, notes in
            #expect(results.count == 1 && results[0].session.name == "2022_MARCH")
            let e = try Self.entries(store, results[0])
            #expect(
                e.map { $0.time.iso8601() }
                    == ["12:22:24", "12:27:48", "12:30:04", "12:43:34"].map { "2022-03-03T\($0)Z" })
            #expect(e[0].latitude == 41.408359 && e[0].longitude == 2.1704229)
            #expect(e[1].latitude == 41.4032766 && e[1].horizontalAccuracy == 10)
            #expect(e[3].latitude == 41.3961889 && e.allSatisfy { $0.motion == ["driving"] })
            let visits = try store.visits(of: results[0].session.id)
            #expect(visits.count == 1)
            #expect(visits[0].latitude == 41.4036299 && visits[0].longitude == 2.1743558)
            #expect(visits[0].arrival == Timestamp(iso8601: "2022-03-03T10:41:08.315Z"))
            #expect(visits[0].departure == Timestamp(iso8601: "2022-03-03T12:22:24Z"))
            #expect(visits[0].address == "La Sagrada Familia, C/ de Mallorca, 401, 08013 Barcelona, Espanya")
            #expect(results[0].session.start == visits[0].arrival && results[0].session.end == e[3].time)
            #expect(
                notes == [
                    "skipped 2 waypointPath point(s): they have no times, and their segment has timed "
                        + "simplifiedRawPath points or no start and end time",
                    "skipped 1 visit(s) to places inside the place of another visit",
                    "stored 1 visit(s) with the session(s): 'gpslog visits SESSION' lists them",
                ])
        }
    }

    @Test(arguments: ["android", "ios"])
    func theTimelineExportGivesPathPointsSignalsAndVisits(_ layout: String) throws {
        let text = layout == "android" ? Self.android : Self.ios
        try Self.imported(text, name: "Timeline.json") { results, store, _ in
            #expect(results.count == 1)
            let e = try Self.entries(store, results[0])
            var times = ["06:04:00", "06:10:00"]
            if layout == "android" { times.insert("05:58:30", at: 0) }
            #expect(e.map { $0.time.iso8601() } == times.map { "2024-05-01T\($0)Z" })
            let path = layout == "android" ? Array(e.dropFirst()) : e
            #expect(abs(path[0].latitude - 52.3702156) < 1e-6 && abs(path[0].longitude - 4.895168) < 1e-6)
            #expect(path[1].latitude == 52.371 && path[1].longitude == 4.897)
            if layout == "android" {
                #expect(e[0].latitude == 52.37021 && e[0].horizontalAccuracy == 12 && e[0].altitude == 4.5)
                #expect(e[0].speed == 1.25)
                #expect(results[0].session.start == e[0].time)  // the raw signal, read last
            }
            let visits = try store.visits(of: results[0].session.id)
            #expect(visits.count == 1)  // the hierarchy level 1 visit is a place inside the first
            #expect(visits[0].latitude == 52.3731 && visits[0].longitude == 4.8926 && visits[0].address == "Work")
            #expect(visits[0].arrival == Timestamp(iso8601: "2024-05-01T06:20:00Z"))
            #expect(visits[0].departure == Timestamp(iso8601: "2024-05-01T15:30:00Z"))
            #expect(results[0].session.end == visits[0].departure)
        }
    }

    /// Overland batches have `locations` too; they stay Overland's.
    @Test func anOverlandBatchIsNotGoogles() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/batch.json"
            let batch =
                #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[5,52]},"properties":{"timestamp":"2024-05-01T08:00:00Z"}}]}"#
            try batch.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(try ImportFormat.detect(path: path) == .overland)
        }
    }
}
