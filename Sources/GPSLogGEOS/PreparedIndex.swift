// SPDX-License-Identifier: MIT
import CGEOS

/// GEOS's sort-tile-recursive tree over prepared geometries: finds the candidates whose envelope holds a point,
/// then tests them exactly. The tree's items are positions in `entries`. See `GEOSSTRtree_create_r`.
public final class PreparedIndex<Item> {
    private let tree: OpaquePointer
    private let context: GEOSContext
    /// The indexed geometries (prepared) with their items; the tree stores their positions.
    public let entries: [(geometry: PreparedGeometry, item: Item)]
    private let positions: UnsafeMutablePointer<Int>

    /// Prepares each geometry and builds the tree over them; throws when GEOS fails. The items keep their order.
    public init(_ entries: [(geometry: Geometry, item: Item)], context: GEOSContext) throws {
        self.context = context
        guard let tree = GEOSSTRtree_create_r(context.handle, 10) else { throw context.failure("GEOSSTRtree_create_r") }
        self.tree = tree
        self.entries = try entries.map { (try $0.geometry.prepared(), $0.item) }
        // The tree keeps raw pointers to its items: stable storage that lives as long as the tree.
        positions = UnsafeMutablePointer<Int>.allocate(capacity: max(entries.count, 1))
        for (i, entry) in entries.enumerated() {
            positions[i] = i
            GEOSSTRtree_insert_r(context.handle, tree, entry.geometry.pointer, positions + i)
        }
    }

    deinit {
        GEOSSTRtree_destroy_r(context.handle, tree)
        positions.deallocate()
    }

    /// The items whose geometry contains the point (x = longitude, y = latitude), in insertion order.
    public func items(containingX x: Double, y: Double) throws -> [Item] {
        let point = try Geometry.point(x: x, y: y, context: context)
        let hits = QueryHits()
        // Unmanaged: `hits` outlives the synchronous query call.
        let userData = Unmanaged.passUnretained(hits).toOpaque()
        GEOSSTRtree_query_r(
            context.handle, tree, point.pointer,
            { item, userData in
                guard let item, let userData else { return }
                Unmanaged<QueryHits>.fromOpaque(userData).takeUnretainedValue().indices.append(
                    item.assumingMemoryBound(to: Int.self).pointee)
            }, userData)
        return try hits.indices.sorted().filter { try entries[$0].geometry.contains(point) }.map { entries[$0].item }
    }
}

/// Collects the tree's query results through its C callback.
final class QueryHits {
    var indices: [Int] = []
}

@available(*, unavailable)
extension PreparedIndex: Sendable {}
