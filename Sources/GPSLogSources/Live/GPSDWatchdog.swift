// SPDX-License-Identifier: MIT
import Foundation
import NIOCore

/// Closes a gpsd connection on which nothing arrived for `limit`: a hung gpsd (or one whose receiver is wedged)
/// keeps its socket open and silent, and a reader waiting on it would wait forever. Closing the channel ends the
/// reading loop; `fired` tells that end from gpsd closing the connection.
final class Watchdog: @unchecked Sendable {
    // @unchecked: `last` and `didFire` are read and written only with `lock` held; `task` is set once, in init.
    private let lock = NSLock()
    private var last = ContinuousClock.now
    private var didFire = false
    private var task: Task<Void, Never>?

    /// Starts watching `channel`; with no `limit`, it never fires.
    init(limit: Duration?, channel: any Channel) {
        guard let limit else { return }
        task = Task { [weak self] in
            while !Task.isCancelled {
                guard let deadline = self?.lastActivity.advanced(by: limit) else { return }
                if ContinuousClock.now >= deadline {
                    self?.fire()
                    channel.close(promise: nil)
                    return
                }
                try? await Task.sleep(until: deadline, clock: .continuous)
            }
        }
    }

    private var lastActivity: ContinuousClock.Instant { lock.withLock { last } }

    private func fire() { lock.withLock { didFire = true } }

    /// Something arrived: the silence starts again from now.
    func touch() { lock.withLock { last = .now } }

    /// True once the watchdog closed the connection.
    var fired: Bool { lock.withLock { didFire } }

    /// Stops watching (the connection ended).
    func cancel() { task?.cancel() }
}
