// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

@testable import GPSLogFormats

/// What comes in from outside and goes out to other programs at the format seams: a CSV cell a spreadsheet would run
/// as a formula, a CSV line of nothing but commas, TCX numbers of 1e300, a KMZ whose document comes late, an element
/// of 200,000 namespace declarations.
@Suite(.ownThreads)
struct SeamsFormatsTests {
    /// The characters OWASP's "CSV Injection" names: a cell starting with one is a formula to a spreadsheet.
    static let triggers = ["=", "+", "-", "@", "\t", "\r"]

    /// A session name, a mark's label and address starting with each trigger (or with the quote that neutralises
    /// them) are written with a `'` in front and quoted; numbers (a longitude of -4.5, an altitude of -4) are not
    /// touched; Python's csv module reads every row with the header's 21 columns; gpslog's import takes the quote
    /// off again, giving the same texts.
    @Test func csvCellsThatStartAFormulaAreNeutralised() throws {
        try withTemporaryDirectory { dir in
            try withTemporaryStore { store, _ in
                let start = Timestamp(iso8601: "2024-05-01T08:00:00Z")!
                var texts: [(name: String, label: String, address: String)] = []
                var exports: [SessionExport] = []
                for (i, c) in (Self.triggers + ["'"]).enumerated() {
                    let t = (
                        name: "\(c)HYPERLINK(\"http://evil.example/?x\",\"Ride \(i)\")",
                        label: "\(c)cmd|' /C calc'!A0",
                        address: "\(c)SUM(1+1)"
                    )
                    let session = try store.createSession(name: t.name, start: start)
                    let time = start.adding(milliseconds: Int64(i) * 60_000)
                    let point = Entry(
                        id: UUID().uuidString.lowercased(), latitude: 52.5, longitude: -4.5, altitude: -4, time: time)
                    let mark = Entry(
                        id: UUID().uuidString.lowercased(), latitude: 52.5001, longitude: -4.5001,
                        time: time.adding(milliseconds: 1000),
                        address: t.address, marked: true, label: t.label)
                    try store.append([point, mark], to: session.id)
                    let stored = try #require(try store.session(id: session.id))
                    texts.append((stored.name, t.label, t.address))
                    exports.append(try SessionExport(store: store, session: stored))
                }
                let path = dir + "/out.csv"
                try Exporter(format: .csv).export(exports, to: path)

                // Python's csv module: every row has the header's columns; the cells as a spreadsheet gets them.
                let script = """
                    import csv, json, sys
                    print(json.dumps(list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))))
                    """
                let (output, status) = try runTool("/usr/bin/python3", ["-c", script, path])
                #expect(status == 0)
                let rows = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String]])
                #expect(rows.count == 1 + 2 * texts.count)
                #expect(rows.allSatisfy { $0.count == CSVWriter.columns.count }, "\(rows.map(\.count))")
                let column = Dictionary(uniqueKeysWithValues: CSVWriter.columns.enumerated().map { ($1, $0) })
                for (i, t) in texts.enumerated() {
                    let point = rows[1 + 2 * i]
                    let mark = rows[2 + 2 * i]
                    // The store drops a name's leading tab or CR itself: such a name has nothing left to neutralise.
                    let formula = (Self.triggers + ["'"]).contains { t.name.hasPrefix($0) }
                    #expect(point[column["session_name"]!] == (formula ? "'" : "") + t.name)
                    #expect(mark[column["name"]!] == "'" + t.label)
                    #expect(mark[column["address"]!] == "'" + t.address)
                    #expect(point[column["longitude"]!] == "-4.5" && point[column["altitude"]!] == "-4")
                    #expect(mark[column["longitude"]!] == "-4.5001")
                }
                // The raw bytes: each neutralised cell quoted, its quote first.
                let raw = try String(contentsOfFile: path, encoding: .utf8)
                #expect(raw.contains(#","'=HYPERLINK(""http://evil.example/?x"",""Ride 0"")","#))
                #expect(raw.contains(#","'@SUM(1+1)","#))
                #expect(raw.contains(",-4.5,"))

                // gpslog's own import reads the same texts back.
                try withTemporaryStore { again, _ in
                    let results = try FileImporter().importFile(path, into: again)
                    #expect(results.map(\.session.name) == texts.map(\.name))
                    for (r, t) in zip(results, texts) {
                        var marks: [Entry] = []
                        try again.entries(of: r.session.id).forEach { if $0.marked { marks.append($0) } }
                        #expect(marks.map(\.label) == [t.label] && marks.map(\.address) == [t.address])
                    }
                }
            }
        }
    }

    /// Another program's CSV whose label starts with a quote keeps it: only gpslog's own export (its header, exactly)
    /// had one put in front.
    @Test func aQuoteInAnotherProgramsCSVIsKept() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/other.csv"
            try "lat,lon,time,annotation\n52.1,5.1,2024-05-01T08:00:00Z,'=quoted\n".write(
                toFile: path, atomically: true, encoding: .utf8)
            try withTemporaryStore { store, _ in
                let results = try FileImporter().importFile(path, into: store)
                var labels: [String?] = []
                try store.entries(of: results[0].session.id).forEach { labels.append($0.label) }
                #expect(labels == ["'=quoted"])
            }
        }
    }

    /// A line of 200,000 commas is refused once it has more fields than the limit, as the commas arrive, naming the
    /// line; so is a line of 2 MB of one unquoted value, and 2 MB of CRs.
    @Test func csvLinesOverTheLimitsAreRefusedAsTheyArrive() throws {
        try withTemporaryDirectory { dir in
            let header = "latitude,longitude,time\n52.1,5.1,2024-05-01T08:00:00Z\n"
            for (name, line, reason) in [
                ("commas", String(repeating: ",", count: 200_000), "more than 4096 fields in a record"),
                ("long", String(repeating: "x", count: 2 << 20), "a record longer than 1 MiB"),
                ("returns", "1" + String(repeating: "\r", count: 2 << 20) + "2", "a record longer than 1 MiB"),
            ] {
                let path = dir + "/\(name).csv"
                try (header + line + "\n").write(toFile: path, atomically: true, encoding: .utf8)
                var reader = try CSVReader(file: path)
                defer { reader.close() }
                #expect(try reader.next() && reader.next())
                let error = #expect(throws: ImportError.self) { _ = try reader.next() }
                let text = error?.errorDescription ?? ""
                #expect(text.contains("\(name).csv:3") && text.contains(reason), "\(text)")
            }
        }
    }

    /// A TCX altitude or speed of 1e300 (or an altitude of -1e6) is no measurement: dropped, with a note naming the
    /// field, the value and the line; the point itself and its good values are kept.
    @Test func tcxValuesOutOfRangeAreDroppedWithANote() throws {
        try withTemporaryDirectory { dir in
            func point(_ minute: Int, altitude: String, speed: String) -> String {
                """
                <Trackpoint><Time>2024-03-01T09:0\(minute):00Z</Time>
                <Position><LatitudeDegrees>52.09</LatitudeDegrees><LongitudeDegrees>5.1</LongitudeDegrees></Position>
                <AltitudeMeters>\(altitude)</AltitudeMeters>
                <Extensions><TPX xmlns="http://www.garmin.com/xmlschemas/ActivityExtension/v2"><Speed>\(speed)</Speed></TPX></Extensions>
                </Trackpoint>

                """
            }
            let text =
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
                <Activities><Activity Sport="Biking"><Id>2024-03-01T09:00:00Z</Id><Lap StartTime="2024-03-01T09:00:00Z"><Track>

                """ + point(0, altitude: "4.5", speed: "5.5") + point(1, altitude: "1e300", speed: "1e300")
                + point(2, altitude: "-1e6", speed: "2.5")
                + "</Track></Lap></Activity></Activities></TrainingCenterDatabase>\n"
            let path = dir + "/huge.tcx"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            var notes: [String] = []
            var options = TrackImportOptions()
            options.notes = { notes.append($0) }
            let sessions = try KMLImportTests.imported(path, options: options)
            let entries = try #require(sessions.first?.entries)
            #expect(entries.map(\.altitude) == [4.5, nil, nil])
            #expect(entries.map(\.speed) == [5.5, nil, 2.5])
            #expect(
                notes.contains {
                    $0.hasPrefix("dropped 3 out-of-range value(s) (the first: AltitudeMeters '1e300' on line 11)")
                }, "\(notes)")
        }
    }

    /// A KMZ whose doc.kml comes after 10,000 other entries is read (every entry of a zip is looked through); one
    /// with no .kml among more entries than the limit is refused saying so, not that it holds no KML.
    @Test func aKMZsDocumentAfterManyEntriesIsFound() throws {
        try withTemporaryDirectory { dir in
            let late = dir + "/late.kmz"
            try KMLHostileInputTests.python(
                "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED)\n"
                    + "for i in range(10001): z.writestr('images/%d.png' % i, 'x')\n"
                    + "z.write(sys.argv[2], 'doc.kml'); z.close()",
                [late, TestPaths.packageRoot + "/Exports/sample.kml"])
            try withTemporaryStore { store, _ in
                let results = try FileImporter().importFile(late, into: store)
                #expect(results.count == 1 && results[0].entries > 0)
            }
            var limits = KMZArchive.Limits()
            limits.maxEntries = 100
            let error = #expect(throws: ImportError.self) { _ = try KMZArchive(path: late, limits: limits) }
            let text = error?.errorDescription ?? ""
            #expect(text.contains("no .kml document among the first 100 entries"), "\(text)")
            #expect(!text.contains("without a .kml document"), "\(text)")
        }
    }

    /// 200,000 namespace declarations (or plain attributes) on one element are refused before libxml2 reads them
    /// (it compares each with every one before it: 18 s of CPU), with the line the element starts on; 1,000 are
    /// read. The refusal counts attributes, not seconds.
    @Test func anElementOfTooManyNamespacesIsRefused() throws {
        try withTemporaryDirectory { dir in
            func kml(_ n: Int, _ attribute: (Int) -> String) -> String {
                var text = "<?xml version=\"1.0\"?>\n<!-- a = b = \" -->\n<kml xmlns=\"http://www.opengis.net/kml/2.2\""
                for i in 0..<n { text += " " + attribute(i) }
                return text + ">\n<Placemark><name>P</name><TimeStamp><when>2024-03-01T09:00:00Z</when></TimeStamp>"
                    + "<Point><coordinates>5.1,52.1</coordinates></Point></Placemark></kml>\n"
            }
            for (name, attribute) in [
                ("ns", { (i: Int) in "xmlns:p\(i)=\"urn:x:\(i)\"" }), ("attr", { (i: Int) in "a\(i)='\(i)'" }),
            ] {
                let many = dir + "/\(name).kml"
                try kml(200_000, attribute).write(toFile: many, atomically: true, encoding: .utf8)
                try KMLHostileInputTests.expectRefusal(
                    many, naming: "\(name).kml:3: an element with more than 1000 attributes or namespace declarations")
                let fine = dir + "/\(name)-fine.kml"
                try kml(999, attribute).write(toFile: fine, atomically: true, encoding: .utf8)
                try withTemporaryStore { store, _ in
                    let results = try FileImporter().importFile(fine, into: store)
                    #expect(results.count == 1)
                }
            }
        }
    }

    /// gpslog's session XML goes through libxml2's reader, not the SAX parser: its bytes are counted as they are read,
    /// and the same element is refused there.
    @Test func aSessionExportOfTooManyNamespacesIsRefused() throws {
        try withTemporaryDirectory { dir in
            var text = "<?xml version=\"1.0\"?>\n<Sessions xmlns=\"urn:gpslog:sessions:1\" version=\"1\""
            for i in 0..<200_000 { text += " xmlns:p\(i)=\"urn:x:\(i)\"" }
            text += "/>\n"
            let path = dir + "/sessions.xml"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            try withTemporaryStore { store, _ in
                let error = #expect(throws: (any Error).self) { _ = try FileImporter().importFile(path, into: store) }
                let words = (error as? LocalizedError)?.errorDescription ?? "\(String(describing: error))"
                #expect(
                    words.contains("sessions.xml") && words.contains("more than 1000 attributes or namespace"),
                    "\(words)")
                let sessions = try store.sessions()
                #expect(sessions.isEmpty)
            }
        }
    }
}
