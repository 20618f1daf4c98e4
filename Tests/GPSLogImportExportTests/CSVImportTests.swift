// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// CSV as trackers and spreadsheets write it.
@Suite(.ownThreads)
struct CSVImportTests {
    func entries(_ text: String, name: String = "t.csv") throws -> (sessions: [String], entries: [Entry]) {
        try withTemporaryDirectory { dir in
            let path = dir + "/" + name
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return try withTemporaryStore { store, _ in
                let results = try FileImporter().importFile(path, into: store)
                var all: [Entry] = []
                for r in results { try store.entries(of: r.session.id).forEach { all.append($0) } }
                return (results.map(\.session.name), all)
            }
        }
    }

    /// GPSLogger's header (its older and newer columns), ISO times with milliseconds, an annotated point as a mark.
    @Test func gpsLoggersCSV() throws {
        let text = #"""
            time,lat,lon,elevation,accuracy,bearing,speed,satellites,provider,hdop,vdop,pdop,geoidheight,ageofdgpsdata,dgpsid,activity,battery,annotation,timestamp_ms,time_offset,distance,starttimestamp_ms,profile_name,battery_charging
            2024-05-01T08:00:00.000Z,52.100000,5.100000,3.0,4.0,90.0,1.5,7,gps,0.9,1.1,1.4,,,,,80,,1714550400000,2024-05-01T10:00:00.000+02:00,0,1714550400000,Default Profile,false
            2024-05-01T08:00:05.000Z,52.100100,5.100100,3.5,4.0,91.0,1.5,7,gps,0.9,1.1,1.4,,,,,80,"Bench, with a ""view""",1714550405000,2024-05-01T10:00:05.000+02:00,7,1714550400000,Default Profile,false
            """#
        let (_, e) = try entries(text)
        #expect(e.count == 2)
        #expect(e[0].altitude == 3 && e[0].horizontalAccuracy == 4 && e[0].course == 90 && e[0].satellites == 7)
        #expect(e[0].hdop == 0.9 && e[0].batteryLevel == 0.8 && !e[0].marked)
        #expect(e[1].marked && e[1].label == "Bench, with a \"view\"")
        #expect(e[1].time == Timestamp(iso8601: "2024-05-01T08:00:05Z"))
    }

    /// `;` with decimal commas, a header in other spellings and a unit, Unix seconds; a blank line and CR LF.
    @Test func semicolonsDecimalCommasAndUnixTimes() throws {
        let text =
            "Latitude;Longitude;Timestamp;Speed (km/h);Höhe\r\n52,5;5,25;1714550400;36;1\r\n\r\n52,6;5,35;1714550460;18;2\r\n"
        let (names, e) = try entries(text, name: "walk.csv")
        #expect(names == ["walk"])
        #expect(e.map(\.latitude) == [52.5, 52.6] && e.map(\.longitude) == [5.25, 5.35])
        #expect(e.map(\.speed) == [10, 5])
        #expect(e[1].time == Timestamp(iso8601: "2024-05-01T08:01:00Z"))
    }

    /// GPSBabel's unicsv: date and time in two columns; GDAL's: X, Y, `2010/08/05 14:23:59+00`, a session per
    /// `track_fid`, a segment per `track_seg_id`.
    @Test func gpsbabelAndGDALColumns() throws {
        let unicsv = "No,Latitude,Longitude,Altitude,Date,Time\n1,45.772175,14.357659,542.3,2010/08/05,14:23:59\n"
        let (_, a) = try entries(unicsv)
        #expect(a.count == 1 && a[0].time == Timestamp(iso8601: "2010-08-05T14:23:59Z") && a[0].altitude == 542.3)
        let gdal = """
            X,Y,track_fid,track_seg_id,track_seg_point_id,ele,time
            14.1,45.1,"0","0","0",1,2010/08/05 14:23:59+00
            14.2,45.2,"0","1","0",2,2010/08/05 14:24:59+00
            14.3,45.3,"1","0","0",3,2010/08/05 15:24:59+00
            """
        let (names, b) = try entries(gdal, name: "gdal.csv")
        #expect(names == ["gdal (1)", "gdal (2)"])
        #expect(b.map(\.latitude) == [45.1, 45.2, 45.3] && b.map(\.startsSegment) == [false, true, false])
    }
}
