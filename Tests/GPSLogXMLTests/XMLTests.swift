// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import GPSLogXML
import Testing

@Suite(.ownThreads)
struct XMLStreamWriterTests {
    @Test func escapesTextAndAttributes() throws {
        let w = try XMLStreamWriter(indent: false)
        try w.startDocument()
        try w.startElement("session")
        try w.attribute("name", "Tom & \"Jerry\" <3 🚲")
        try w.element("label", "a<b & c>d")
        try w.endElement()
        try w.finish()
        #expect(
            w.contents == """
                <?xml version="1.0" encoding="UTF-8"?>
                <session name="Tom &amp; &quot;Jerry&quot; &lt;3 🚲"><label>a&lt;b &amp; c&gt;d</label></session>

                """)
    }

    @Test func writesToAFileDescriptor() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/out.xml"
            let fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
            #expect(fd >= 0)
            let w = try XMLStreamWriter(fileDescriptor: fd, destination: path)
            try w.startDocument()
            try w.element("a", "1")
            try w.finish()
            close(fd)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.hasSuffix("<a>1</a>\n"))
        }
    }
}

@Suite(.ownThreads)
struct XMLStreamReaderTests {
    @Test func streamsElementsAttributesAndText() throws {
        let r = try XMLStreamReader(
            bytes: Array(
                #"<gpx xmlns="http://www.topografix.com/GPX/1/1"><trkpt lat="52.1" lon="5.2"><ele>-4.5</ele></trkpt></gpx>"#
                    .utf8))
        var seen: [String] = []
        while try r.read() {
            if r.nodeType == .element && r.localName == "trkpt" {
                seen.append("\(r.attribute("lat")!),\(r.attribute("lon")!)")
                #expect(r.namespaceURI == "http://www.topografix.com/GPX/1/1")
            }
            if r.nodeType == .element && r.localName == "ele" { seen.append(try r.readElementText()) }
        }
        #expect(seen == ["52.1,5.2", "-4.5"])
    }

    @Test func malformedInputFailsWithLibxmlsMessageAndLine() throws {
        let r = try XMLStreamReader(bytes: Array("<a>\n<b>\n</a>".utf8), name: "broken.gpx")
        let error = #expect(throws: XMLError.self) { while try r.read() {} }
        #expect(error?.file == "broken.gpx")
        #expect(error?.line == 3)
        #expect(error?.message.contains("Opening and ending tag mismatch") == true)
    }

    @Test func refusesEntityDeclarations() throws {
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
            <lolz>&lol2;</lolz>
            """
        let r = try XMLStreamReader(bytes: Array(laughs.utf8), name: "laughs.gpx")
        let error = #expect(throws: XMLError.self) { while try r.read() {} }
        #expect(error?.message.contains("DTDs and entities are not accepted") == true)
    }
}

@Suite(.ownThreads)
struct SchemaValidatorTests {
    static let schema = TestPaths.packageRoot + "/Schema/xsd/gpx-1.1+tpx-v2.wrapper.xsd"

    @Test func acceptsAValidGPXAndNamesTheLineOfAnInvalidOne() throws {
        try withTemporaryDirectory { dir in
            let validator = try SchemaValidator(schemaPath: Self.schema)
            let good = dir + "/good.gpx"
            try """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx xmlns="http://www.topografix.com/GPX/1/1" version="1.1" creator="gpslog">
              <trk><trkseg><trkpt lat="52.85" lon="5.31"><ele>-4</ele><time>2018-08-20T09:47:37Z</time></trkpt></trkseg></trk>
            </gpx>
            """.write(toFile: good, atomically: true, encoding: .utf8)
            #expect(validator.validate(file: good).isEmpty)
            let bad = dir + "/bad.gpx"
            try """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx xmlns="http://www.topografix.com/GPX/1/1" version="1.1" creator="gpslog">
              <trk><trkseg>
                <trkpt lat="98.1" lon="5.31"/>
              </trkseg></trk>
            </gpx>
            """.write(toFile: bad, atomically: true, encoding: .utf8)
            let errors = validator.validate(file: bad)
            #expect(errors.count == 1)
            #expect(errors.first?.line == 4)
            #expect(errors.first?.file == bad)
            #expect(errors.first?.message.contains("98.1") == true)
        }
    }

    @Test func aBrokenSchemaFailsWithLibxmlsMessage() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/broken.xsd"
            try "<xsd:schema xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\"><xsd:element/></xsd:schema>"
                .write(toFile: path, atomically: true, encoding: .utf8)
            let error = #expect(throws: XMLError.self) { _ = try SchemaValidator(schemaPath: path) }
            #expect(error?.message.isEmpty == false)
            #expect(error?.file == path)
        }
    }
}
