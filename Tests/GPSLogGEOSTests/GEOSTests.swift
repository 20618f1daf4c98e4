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

    @Test func polygonsWithHolesAreMeasuredAndABowtieIsInvalidWithGEOSsReason() throws {
        let context = try GEOSContext()
        let shell: Ring = [(0, 0), (10, 0), (10, 10), (0, 10), (0, 0)]
        let hole: Ring = [(4, 4), (6, 4), (6, 6), (4, 6), (4, 4)]
        let yard = try Geometry.polygon([shell, hole], context: context)
        #expect(try yard.invalidityReason() == nil && !yard.isEmpty())
        #expect(try yard.area() == 96)
        #expect(try abs(yard.maximumInscribedRadius(tolerance: 0.01) - 2.4) < 0.1)
        let circle = try yard.minimumBoundingCircle()
        #expect(circle.x == 5 && circle.y == 5 && abs(circle.radius - 50.0.squareRoot()) < 1e-9)
        // A point in the hole is outside, 1 from the hole's edge; one in the ring inside, 2 from the outer edge.
        let inside = try yard.prepared()
        let edge = try yard.boundary().prepared()
        let inHole = try Geometry.point(x: 5, y: 5, context: context)
        let inRing = try Geometry.point(x: 8, y: 5, context: context)
        #expect(try !inside.contains(inHole) && edge.distance(to: inHole) == 1)
        #expect(try inside.contains(inRing) && edge.distance(to: inRing) == 2)
        // Inside the outer square: GEOS's point on the surface is never in the hole.
        let onSurface = try yard.pointOnSurface()
        #expect(try inside.contains(onSurface))
        // Doubled in x: the area doubles.
        #expect(try yard.transformed { (2 * $0, $1) }.area() == 192)

        let bowtie = try Geometry.polygon([[(0, 0), (2, 2), (2, 0), (0, 2), (0, 0)]], context: context)
        #expect(try bowtie.invalidityReason() == "Self-intersection[1 1]")
        let two = try Geometry.multiPolygon([[shell], [[(20, 0), (21, 0), (21, 1), (20, 0)]]], context: context)
        #expect(try two.invalidityReason() == nil && two.area() == 100.5)
    }

    @Test func aRingThatDoesNotCloseFailsWithGEOSsMessage() throws {
        let context = try GEOSContext()
        let error = #expect(throws: GEOSError.self) {
            _ = try Geometry.polygon([[(0, 0), (1, 0), (1, 1), (0, 1)]], context: context)
        }
        #expect(error?.operation == "creating a ring")
        #expect(error?.messages.first?.contains("closed") == true, "\(String(describing: error))")
    }
}
