// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

/// The kept day figures (DaySummaries, DayCells) equal a recount after batches that land anywhere in the track: in
/// order, out of order, into gaps, over midnight, with jumps faster than the ground speed (a point reached in the
/// air counts no cell), resent and overlapping, as several connections posting one device's batches make them.
@Suite(.ownThreads)
struct DayFiguresOrderTests {
    let start = Timestamp(milliseconds: 1_700_000_000_000)

    /// About three days of one device's points: 5 s to 15 min apart (steps longer than the moving limit among
    /// them), a slow random walk with now and then a jump of tens of kilometres in seconds.
    func points(count: Int, seed: UInt64) -> [Entry] {
        var rng = SplitMix64(seed: seed)
        var (t, lat, lon) = (start.milliseconds, 52.0, 5.0)
        return (0..<count).map { _ in
            let gap: Int64 = rng.next() % 8 == 0 ? 900_000 : Int64(5_000 + rng.next() % 55_000)
            t += gap
            if rng.next() % 40 == 0 {
                lat += 0.3
            } else {
                lat += Double(Int64(rng.next() % 201) - 100) / 100_000
                lon += Double(Int64(rng.next() % 201) - 100) / 100_000
            }
            var e = Entry(key: nil, id: "", latitude: lat, longitude: lon, time: Timestamp(milliseconds: t))
            e.speed = 1
            return e
        }
    }

    func expectDaysKept(_ store: Store, _ session: Session, _ comment: Comment) throws {
        let kept = try store.keptDays(sessionKey: session.key)
        let recount = try store.countDays(sessionKey: session.key)
        #expect(kept == recount, comment)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func batchesInAnyOrderKeepTheDaysOfARecount(seed: UInt64) throws {
        try withTemporaryStore { store, _ in
            let all = points(count: 1_200, seed: seed)
            // Consecutive runs of 10 to 60 points, posted in a shuffled order; every fifth one posted again with
            // part of the next (overlapping: its repeats are skipped, its new points land in the middle).
            var rng = SplitMix64(seed: seed + 100)
            var batches: [[Entry]] = []
            var i = 0
            while i < all.count {
                let n = 10 + Int(rng.next() % 51)
                batches.append(Array(all[i..<min(all.count, i + n)]))
                i += n
            }
            for k in stride(from: 0, to: batches.count - 1, by: 5) {
                batches.append(batches[k] + batches[k + 1].prefix(5))
            }
            for k in stride(from: batches.count - 1, to: 0, by: -1) {
                batches.swapAt(k, Int(rng.next() % UInt64(k + 1)))
            }
            for (n, batch) in batches.enumerated() {
                _ = try store.storeReceived([
                    ReceivedBatch(receiver: "overland:phone", name: "phone", start: start, mode: nil, entries: batch)
                ])
                try expectDaysKept(store, try store.resolveSession("phone"), "after batch \(n) of \(batches.count)")
            }
            let session = try store.resolveSession("phone")
            #expect(try store.countDays(sessionKey: session.key).values.map(\.trackPoints).reduce(0, +) == all.count)
            #expect(try store.countDays(sessionKey: session.key).count >= 3, "the points span several days")
        }
    }
}
