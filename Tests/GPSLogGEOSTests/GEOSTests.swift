// SPDX-License-Identifier: MIT
import GPSLogGEOS
import Testing

struct GEOSTests {
    @Test func badWKTFailsWithGEOSsOwnMessage() throws {
        let context = try GEOSContext()
        let error = #expect(throws: GEOSError.self) {
            _ = try Geometry.fromWKT("LINESTRING (1 2, x)", context: context)
        }
        #expect(error?.operation == "reading WKT")
        #expect(error?.messages.first?.contains("ParseException") == true)
    }

    @Test func lineStringsHaveLengthsAndSimplify() throws {
        let context = try GEOSContext()
        // A zig-zag whose bumps are 0.1 high: simplified at 0.5 it becomes one straight segment.
        let points = (0...10).map { (x: Double($0), y: $0 % 2 == 0 ? 0.0 : 0.1) }
        let line = try Geometry.lineString(points, context: context)
        #expect(try line.length() > 10)
        let simple = try line.topologyPreservingSimplify(tolerance: 0.5)
        let coords = try simple.coordinates()
        #expect(coords.count == 2)
        #expect(coords.first?.x == 0 && coords.last?.x == 10)
        #expect(try simple.wkt() == "LINESTRING (0 0, 10 0)")
    }

    @Test func preparedPolygonsContainPoints() throws {
        let context = try GEOSContext()
        let square = try Geometry.fromWKT("POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))", context: context).prepared()
        #expect(try square.contains(Geometry.point(x: 5, y: 5, context: context)))
        #expect(try !square.contains(Geometry.point(x: 15, y: 5, context: context)))
    }
}
