// SPDX-License-Identifier: MIT
import GPSLogModel

/// The sessions one viewer may see: the only way the web view finds a session. `Store` answers from its `Owner`
/// column; PostgreSQL's reader from the devices its sessions came from.
public protocol ViewerScoped: AnyObject {
    /// The sessions `viewer` may see, oldest first.
    func sessions(visibleTo viewer: SessionViewer) throws -> [Session]
    /// The session a name, id or id prefix names among those `viewer` may see.
    func resolveSession(_ query: String, visibleTo viewer: SessionViewer) throws -> Session
    /// The statistics of the sessions `include` takes, from the kept per-day figures.
    func statistics(year: Int?, including include: (Session) -> Bool, locate: Statistics.Locate?) throws -> Statistics
    /// Ends the store's use: closes its file or connection.
    func close()
}

extension Store: ViewerScoped {}
