// SPDX-License-Identifier: MIT
import CGEOS

/// A closed ring of (x, y) points: the last one the same as the first.
public typealias Ring = [(x: Double, y: Double)]

extension Geometry {
    // MARK: - Making polygons

    /// A polygon from its rings: the shell first, then its holes. See `GEOSGeom_createLinearRing_r` and
    /// `GEOSGeom_createPolygon_r`.
    public static func polygon(_ rings: [Ring], context: GEOSContext) throws -> Geometry {
        Geometry(try rawPolygon(rings, context: context), context: context)
    }

    /// A multipolygon of polygons, each given as its rings. See `GEOSGeom_createCollection_r`.
    public static func multiPolygon(_ polygons: [[Ring]], context: GEOSContext) throws -> Geometry {
        var parts: [OpaquePointer?] = []
        do {
            for polygon in polygons { parts.append(try rawPolygon(polygon, context: context)) }
        } catch {
            for part in parts { GEOSGeom_destroy_r(context.handle, part) }
            throw error
        }
        // The collection owns the parts from here, also when it fails (GEOS ticket 1111); the array stays ours.
        let g = parts.withUnsafeMutableBufferPointer {
            GEOSGeom_createCollection_r(
                context.handle, Int32(GEOS_MULTIPOLYGON.rawValue), $0.baseAddress, UInt32($0.count))
        }
        guard let g else { throw context.failure("creating a multipolygon") }
        return Geometry(g, context: context)
    }

    /// A `GEOSGeometry *` polygon the caller owns. Each constructor takes ownership of what it is given (the
    /// sequence, the rings), also when it fails, so only what was not handed on is destroyed here.
    private static func rawPolygon(_ rings: [Ring], context: GEOSContext) throws -> OpaquePointer {
        guard !rings.isEmpty else { throw GEOSError(operation: "creating a polygon", messages: ["no rings"]) }
        var made: [OpaquePointer?] = []
        do {
            for ring in rings {
                let seq = try coordinateSequence(ring, context: context)
                guard let r = GEOSGeom_createLinearRing_r(context.handle, seq) else {
                    throw context.failure("creating a ring")
                }
                made.append(r)
            }
        } catch {
            for ring in made { GEOSGeom_destroy_r(context.handle, ring) }
            throw error
        }
        var holes = Array(made.dropFirst())
        let polygon = holes.withUnsafeMutableBufferPointer {
            GEOSGeom_createPolygon_r(context.handle, made[0], $0.baseAddress, UInt32($0.count))
        }
        guard let polygon else { throw context.failure("creating a polygon") }
        return polygon
    }

    // MARK: - Checks and measures

    /// Nil when the geometry is valid (OGC simple features), else GEOS's reason, such as
    /// `Self-intersection[10.98 47.49]`. See `GEOSisValid_r` and `GEOSisValidReason_r`.
    public func invalidityReason() throws -> String? {
        switch GEOSisValid_r(context.handle, pointer) {
        case 1: return nil
        case 0: break
        default: throw context.failure("checking validity")
        }
        guard let reason = GEOSisValidReason_r(context.handle, pointer) else {
            throw context.failure("explaining invalidity")
        }
        defer { GEOSFree_r(context.handle, reason) }
        return String(cString: reason)
    }

    /// True for a geometry with no points. See `GEOSisEmpty_r`.
    public func isEmpty() throws -> Bool {
        let rc = GEOSisEmpty_r(context.handle, pointer)
        if rc == 2 { throw context.failure("testing emptiness") }
        return rc == 1
    }

    /// Area in the geometry's units, squared. See `GEOSArea_r`.
    public func area() throws -> Double {
        var value = 0.0
        guard GEOSArea_r(context.handle, pointer, &value) == 1 else { throw context.failure("computing an area") }
        return value
    }

    /// A point guaranteed to lie in the geometry's interior. See `GEOSPointOnSurface_r`.
    public func pointOnSurface() throws -> Geometry {
        guard let g = GEOSPointOnSurface_r(context.handle, pointer) else {
            throw context.failure("finding a point on the surface")
        }
        return Geometry(g, context: context)
    }

    /// The boundary: a polygon's rings as lines. See `GEOSBoundary_r`.
    public func boundary() throws -> Geometry {
        guard let g = GEOSBoundary_r(context.handle, pointer) else { throw context.failure("computing a boundary") }
        return Geometry(g, context: context)
    }

    /// The radius of the largest circle inside a polygon (its deepest point's distance to the boundary), to within
    /// `tolerance`. See `GEOSMaximumInscribedCircle_r`, which returns the radius as a line from centre to boundary.
    public func maximumInscribedRadius(tolerance: Double) throws -> Double {
        guard let g = GEOSMaximumInscribedCircle_r(context.handle, pointer, tolerance) else {
            throw context.failure("finding the largest inscribed circle")
        }
        return try Geometry(g, context: context).length()
    }

    /// The smallest circle holding the geometry: its centre and radius. See `GEOSMinimumBoundingCircle_r`.
    public func minimumBoundingCircle() throws -> (x: Double, y: Double, radius: Double) {
        var radius = 0.0
        var centre: OpaquePointer?
        guard let circle = GEOSMinimumBoundingCircle_r(context.handle, pointer, &radius, &centre) else {
            throw context.failure("finding the smallest enclosing circle")
        }
        GEOSGeom_destroy_r(context.handle, circle)
        guard let centre else { throw context.failure("finding the smallest enclosing circle's centre") }
        let point = try Geometry(centre, context: context).coordinates()
        guard let first = point.first else { throw context.failure("reading the enclosing circle's centre") }
        return (first.x, first.y, radius)
    }

    /// The same geometry with every (x, y) mapped through `transform`. See `GEOSGeom_transformXY_r`.
    public func transformed(_ transform: @escaping (Double, Double) -> (x: Double, y: Double)) throws -> Geometry {
        let box = TransformBox(transform)
        // Unmanaged: `box` outlives the synchronous call (withExtendedLifetime).
        let g = withExtendedLifetime(box) {
            GEOSGeom_transformXY_r(
                context.handle, pointer,
                { x, y, userData in
                    guard let x, let y, let userData else { return 0 }
                    let f = Unmanaged<TransformBox>.fromOpaque(userData).takeUnretainedValue().transform
                    (x.pointee, y.pointee) = f(x.pointee, y.pointee)
                    return 1
                }, Unmanaged.passUnretained(box).toOpaque())
        }
        guard let g else { throw context.failure("transforming coordinates") }
        return Geometry(g, context: context)
    }
}

/// Carries a Swift closure through GEOS's C callback.
final class TransformBox {
    let transform: (Double, Double) -> (x: Double, y: Double)
    init(_ transform: @escaping (Double, Double) -> (x: Double, y: Double)) { self.transform = transform }
}

extension PreparedGeometry {
    /// The distance from `other` to this geometry (0 when they meet). See `GEOSPreparedDistance_r`.
    public func distance(to other: Geometry) throws -> Double {
        var value = 0.0
        guard GEOSPreparedDistance_r(base.context.handle, pointer, other.pointer, &value) == 1 else {
            throw base.context.failure("computing a distance")
        }
        return value
    }
}
