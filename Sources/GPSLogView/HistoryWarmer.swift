// SPDX-License-Identifier: MIT
import Foundation
import GPSLogStore
import GPSLogSystem
import Logging

/// Keeps the history map's tile pyramid drawn while `serve` runs, so that a browser opening /history finds its
/// tiles kept instead of waiting while they are drawn. A write drops the tiles it touches (at every zoom); drawn
/// again on demand, the first low-zoom tile after an import of a year (30M entries) took 26 s.
///
/// On a thread of its own, niced (10): shortly after the start, then every `interval`, it reads what writes dropped
/// (`HistoryDrawState`) and, when `HistoryWarmPolicy` says so, asks each viewer's world tile (zoom 0), which draws
/// whatever is missing beneath it (the tiles a write touched, or all of them once after an upgrade).
enum HistoryWarmer {
    /// Starts the thread for the store `open` opens (`databasePath`, when it is a SQLite file); it draws for as long
    /// as the process runs.
    static func start(
        databasePath: String?, open: @escaping ViewStoreOpener, interval: Duration = .seconds(30), logger: Logger
    ) {
        let thread = Thread {
            // Below the receiver's and the pages' threads (Foundation's qualityOfService does nothing on Linux; a
            // nice value there is the calling thread's, who 0, not the whole process's).
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            var wait = Duration.seconds(2)
            var lastError: String?
            var policy = HistoryWarmPolicy()
            while true {
                Thread.sleep(forTimeInterval: Double(wait.components.seconds))
                wait = interval
                // A database moved or deleted while serve runs is not made again here (Store creates a missing one).
                if let databasePath, !FileManager.default.fileExists(atPath: databasePath) { continue }
                do {
                    let store = try open()
                    defer { store.close() }
                    let state = try store.historyDrawState()
                    let now = ContinuousClock.now
                    if policy.shouldDraw(state, now: now) {
                        for viewer in try store.historyViewers() {
                            _ = try store.historyTile(z: 0, x: 0, y: 0, viewer: viewer, filter: .init())
                        }
                        // The state read before drawing: a write that lands while the tiles are drawn is drawn at
                        // the next round that finds the writes quiet.
                        policy.drew(state, now: now)
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

/// When a round of the background drawing draws. Each drawing writes the tiles it draws again, and a recorder
/// beside `serve` drops the same dozen (its place at every zoom) at each of its commits: drawn again every 30 s,
/// that cost the SD card about 7 MB an hour (`Benchmarks/write-budget.sh --serve`), for tiles a browser draws in
/// milliseconds when it asks. So small, steady writes are drawn once they pause (`quiet`), or every `longest`
/// while they go on; a big write (an import, a deleted session: drawn on demand the first view of a year waits
/// 26 s) is drawn at the next round.
struct HistoryWarmPolicy {
    /// Entries written since the last drawing that make a big write.
    static let bigWrite: Int64 = 10_000
    /// Kept zoom-13 tiles dropped since the last drawing that make a big write.
    static let droppedTiles: Int64 = 16
    /// No new entry for this long: the writes paused (a recorder commits every 20 s by default).
    static let quiet = Duration.seconds(60)
    /// The longest steady writes wait to be drawn.
    static let longest = Duration.seconds(600)

    private var drawn: (state: HistoryDrawState, at: ContinuousClock.Instant)?
    private var lastWrite: (key: Int64, at: ContinuousClock.Instant)?

    /// Whether the round that read `state` at `now` draws.
    mutating func shouldDraw(_ state: HistoryDrawState, now: ContinuousClock.Instant) -> Bool {
        if lastWrite?.key != state.lastEntryKey { lastWrite = (state.lastEntryKey, now) }
        guard let drawn else { return true }
        if state == drawn.state { return false }
        if state.staleSessions { return true }
        if state.lastEntryKey - drawn.state.lastEntryKey >= Self.bigWrite { return true }
        if drawn.state.keptTiles - state.keptTiles >= Self.droppedTiles { return true }
        if let lastWrite, now - lastWrite.at >= Self.quiet { return true }
        return now - drawn.at >= Self.longest
    }

    /// Notes that the round that read `state` at `now` drew.
    mutating func drew(_ state: HistoryDrawState, now: ContinuousClock.Instant) { drawn = (state, now) }
}
