// SPDX-License-Identifier: MIT
import CGEOS

/// A GEOS geometry owned by Swift: destroyed in `deinit` with its context.
public final class Geometry {
    /// The raw `GEOSGeometry *`.
    public let pointer: OpaquePointer
    /// The context it was made with (kept alive as long as the geometry).
    public let context: GEOSContext

    init(_ pointer: OpaquePointer, context: GEOSContext) {
        self.pointer = pointer
        self.context = context
    }

    deinit { GEOSGeom_destroy_r(context.handle, pointer) }

    // MARK: - Making geometries

    /// Parses Well-Known Text. See `GEOSWKTReader_read_r` in the GEOS C API.
    public static func fromWKT(_ text: String, context: GEOSContext) throws -> Geometry {
        guard let reader = GEOSWKTReader_create_r(context.handle) else {
            throw context.failure("GEOSWKTReader_create_r")
        }
        defer { GEOSWKTReader_destroy_r(context.handle, reader) }
        guard let g = GEOSWKTReader_read_r(context.handle, reader, text) else { throw context.failure("reading WKT") }
        return Geometry(g, context: context)
    }

    /// A line string through points given as (x, y). See `GEOSGeom_createLineString_r`.
    public static func lineString(_ points: [(x: Double, y: Double)], context: GEOSContext) throws -> Geometry {
        let seq = try coordinateSequence(points, context: context)
        // The new geometry takes ownership of the sequence.
        guard let g = GEOSGeom_createLineString_r(context.handle, seq) else {
            throw context.failure("creating a line string")
        }
        return Geometry(g, context: context)
    }

    /// A point. See `GEOSGeom_createPointFromXY_r`.
    public static func point(x: Double, y: Double, context: GEOSContext) throws -> Geometry {
        guard let g = GEOSGeom_createPointFromXY_r(context.handle, x, y) else {
            throw context.failure("creating a point")
        }
        return Geometry(g, context: context)
    }

    static func coordinateSequence(_ points: [(x: Double, y: Double)], context: GEOSContext) throws -> OpaquePointer {
        guard let seq = GEOSCoordSeq_create_r(context.handle, UInt32(points.count), 2) else {
            throw context.failure("creating a coordinate sequence")
        }
        for (i, p) in points.enumerated() where GEOSCoordSeq_setXY_r(context.handle, seq, UInt32(i), p.x, p.y) == 0 {
            GEOSCoordSeq_destroy_r(context.handle, seq)
            throw context.failure("setting coordinate \(i)")
        }
        return seq
    }

    // MARK: - Reading

    /// Well-Known Text. See `GEOSWKTWriter_write_r`.
    public func wkt(precision: Int32 = 7) throws -> String {
        guard let writer = GEOSWKTWriter_create_r(context.handle) else {
            throw context.failure("GEOSWKTWriter_create_r")
        }
        defer { GEOSWKTWriter_destroy_r(context.handle, writer) }
        GEOSWKTWriter_setRoundingPrecision_r(context.handle, writer, precision)
        GEOSWKTWriter_setTrim_r(context.handle, writer, 1)
        guard let text = GEOSWKTWriter_write_r(context.handle, writer, pointer) else {
            throw context.failure("writing WKT")
        }
        defer { GEOSFree_r(context.handle, text) }
        return String(cString: text)
    }

    /// Length in the geometry's units. See `GEOSLength_r`.
    public func length() throws -> Double {
        var value = 0.0
        guard GEOSLength_r(context.handle, pointer, &value) == 1 else { throw context.failure("computing a length") }
        return value
    }

    /// The (x, y) coordinates of a point or line string. See `GEOSCoordSeq_getXY_r`.
    public func coordinates() throws -> [(x: Double, y: Double)] {
        guard let seq = GEOSGeom_getCoordSeq_r(context.handle, pointer) else {
            throw context.failure("reading coordinates")
        }
        var size: UInt32 = 0
        guard GEOSCoordSeq_getSize_r(context.handle, seq, &size) == 1 else {
            throw context.failure("reading coordinates")
        }
        var result: [(x: Double, y: Double)] = []
        result.reserveCapacity(Int(size))
        for i in 0..<size {
            var x = 0.0
            var y = 0.0
            guard GEOSCoordSeq_getXY_r(context.handle, seq, i, &x, &y) == 1 else {
                throw context.failure("reading coordinate \(i)")
            }
            result.append((x, y))
        }
        return result
    }

    // MARK: - Operations

    /// Douglas-Peucker simplification: every vertex left out is within `tolerance` of the result, whose vertices are
    /// a subsequence of the original ones. Unlike `topologyPreservingSimplify` it may make a line cross itself. See
    /// `GEOSSimplify_r`.
    public func simplify(tolerance: Double) throws -> Geometry {
        guard let g = GEOSSimplify_r(context.handle, pointer, tolerance) else { throw context.failure("simplifying") }
        return Geometry(g, context: context)
    }

    /// Douglas-Peucker simplification that keeps the topology valid (no self-intersections introduced).
    /// See `GEOSTopologyPreserveSimplify_r`.
    public func topologyPreservingSimplify(tolerance: Double) throws -> Geometry {
        guard let g = GEOSTopologyPreserveSimplify_r(context.handle, pointer, tolerance) else {
            throw context.failure("simplifying")
        }
        return Geometry(g, context: context)
    }

    /// A prepared form for fast repeated predicates (point-in-polygon). See `GEOSPrepare_r`.
    public func prepared() throws -> PreparedGeometry {
        guard let p = GEOSPrepare_r(context.handle, pointer) else { throw context.failure("preparing a geometry") }
        return PreparedGeometry(p, base: self)
    }
}

/// A prepared geometry; destroyed in `deinit`, keeping its base geometry alive.
public final class PreparedGeometry {
    let pointer: OpaquePointer
    /// The geometry it was prepared from (GEOS requires it to outlive the prepared form).
    public let base: Geometry

    init(_ pointer: OpaquePointer, base: Geometry) {
        self.pointer = pointer
        self.base = base
    }

    deinit { GEOSPreparedGeom_destroy_r(base.context.handle, pointer) }

    /// True when `other` lies inside this geometry. See `GEOSPreparedContains_r`.
    public func contains(_ other: Geometry) throws -> Bool {
        let rc = GEOSPreparedContains_r(base.context.handle, pointer, other.pointer)
        if rc == 2 { throw base.context.failure("testing containment") }
        return rc == 1
    }
}

@available(*, unavailable)
extension Geometry: Sendable {}
@available(*, unavailable)
extension PreparedGeometry: Sendable {}

extension Geometry {
    /// Parses a GeoJSON geometry object (`{"type":"Polygon",...}`). See `GEOSGeoJSONReader_readGeometry_r`.
    public static func fromGeoJSON(_ text: String, context: GEOSContext) throws -> Geometry {
        guard let reader = GEOSGeoJSONReader_create_r(context.handle) else {
            throw context.failure("GEOSGeoJSONReader_create_r")
        }
        defer { GEOSGeoJSONReader_destroy_r(context.handle, reader) }
        guard let g = GEOSGeoJSONReader_readGeometry_r(context.handle, reader, text) else {
            throw context.failure("reading GeoJSON")
        }
        return Geometry(g, context: context)
    }
}
