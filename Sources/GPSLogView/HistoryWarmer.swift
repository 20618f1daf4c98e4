// SPDX-License-Identifier: MIT
import Foundation
import GPSLogStore
import GPSLogSystem
import Logging

/// Keeps the history map's tile pyramid drawn while `serve` runs, so that a browser opening /history finds its
/// tiles kept instead of waiting while they are drawn. A write drops the tiles it touches (at every zoom); drawn
/// again on demand, the first low-zoom tile after an import of a year (30M entries) took 26 s.
///
/// On a thread of its own, niced (10): shortly after the start, then every `interval`, it asks each viewer's
/// world tile (zoom 0), which draws whatever is missing beneath it (the tiles a write touched, or all of them once
/// after an upgrade). When nothing is missing that is one lookup per viewer.
enum HistoryWarmer {
    /// Starts the thread for `databasePath`; it draws for as long as the process runs.
    static func start(databasePath: String, interval: Duration = .seconds(30), logger: Logger) {
        let thread = Thread {
            // Below the receiver's and the pages' threads (Foundation's qualityOfService does nothing on Linux; a
            // nice value there is the calling thread's, who 0, not the whole process's).
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            var wait = Duration.seconds(2)
            var lastError: String?
            while true {
                Thread.sleep(forTimeInterval: Double(wait.components.seconds))
                wait = interval
                // A database moved or deleted while serve runs is not made again here (Store creates a missing one).
                guard FileManager.default.fileExists(atPath: databasePath) else { continue }
                do {
                    let store = try Store(path: databasePath)
                    defer { store.close() }
                    for viewer in try store.historyViewers() {
                        _ = try store.historyTile(z: 0, x: 0, y: 0, viewer: viewer)
                    }
                    lastError = nil
                } catch {
                    // Said once while it lasts (a database being replaced, a full disk); tried again next round.
                    let message = describeForPeople(error)
                    if message != lastError { logger.warning("history map: \(message.visible)") }
                    lastError = message
                }
            }
        }
        thread.name = "history tiles"
        thread.start()
    }
}
