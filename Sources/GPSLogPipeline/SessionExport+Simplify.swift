// SPDX-License-Identifier: MIT
import GPSLogFormats
import GPSLogModel

extension SessionExport {
    /// A session's export whose track is thinned to `simplify` metres with GEOS (nil or 0: the whole track).
    public init(
        store: any SessionSource, session: Session, from: Timestamp? = nil, to: Timestamp? = nil, simplify: Double?
    ) throws {
        let kept = try simplify.flatMap { tolerance in
            tolerance > 0
                ? try Simplifier.keptKeys(of: session.id, in: store, from: from, to: to, tolerance: tolerance) : nil
        }
        self.init(store: store, session: session, from: from, to: to, keeping: kept)
    }
}
