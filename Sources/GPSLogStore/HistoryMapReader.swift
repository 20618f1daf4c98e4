// SPDX-License-Identifier: MIT
import GPSLogModel

/// What the history map reads of a store: its tiles, the session under a click, the box of the tracks, and what its
/// background drawing needs. `Store` keeps the tile pyramid in the SQLite database (`Schema/025_history_tiles.sql`),
/// PostgreSQL's reader in its own tables (`Schema/postgres/007_history_tiles.sql`); both draw the same pixels.
public protocol HistoryMapReader: AnyObject {
    /// The tile `z/x/y` as `viewer` sees the history through `filter`.
    func historyTile(z: Int, x: Int, y: Int, viewer: SessionViewer, filter: HistoryFilter) throws -> HistoryRaster
    /// The id of the session whose track passes nearest to the point, within `radius` pixels at `zoom`; nil: none.
    func historySession(
        latitude: Double, longitude: Double, zoom: Int, viewer: SessionViewer, filter: HistoryFilter, radius: Double
    ) throws -> String?
    /// South, west, north and east of the tracks `viewer` sees that `filter` keeps; nil when none has a point.
    func historyBounds(viewer: SessionViewer, filter: HistoryFilter) throws -> [Double]?
    /// The viewers whose tiles the background drawing keeps ready.
    func historyViewers() throws -> [SessionViewer]
    /// Cheap figures that say whether writes dropped kept tiles since they were last read.
    func historyDrawState() throws -> HistoryDrawState
}

extension Store: HistoryMapReader {}
