// SPDX-License-Identifier: MIT
import GPSLogModel

/// The regions a recording watches, and what happened at them: the transitions and visits of a session, as the
/// region commands, the recorder and the senders read them. `Store` keeps them.
public protocol RegionStore: AnyObject {
    /// Every region, by name.
    func regions() throws -> [Region]
    /// Adds a region (`StoreError.invalidRegion` when its name or rid is in use, or its radius is not positive).
    @discardableResult
    func addRegion(_ region: Region) throws -> Region
    /// Removes the region of that name; false when there is none.
    @discardableResult
    func removeRegion(named name: String) throws -> Bool
    /// A session's region transitions in time order.
    func transitions(of sessionID: String) throws -> [Transition]
    /// A session's visits by arrival.
    func visits(of sessionID: String) throws -> [Visit]
}

extension Store: RegionStore {}
