// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogStore
import GPSLogTestSupport
import Testing

/// `sampledTrackPoints`: a long span's chart read by index seeks, evenly in time, marks and heading changes left out.
@Suite(.ownThreads)
struct SamplingTests {
    @Test func samplesAreEvenInTimeTrackPointsOnlyAndNeverTwice() throws {
        try withTemporaryStore { store, _ in
            let start = Timestamp(milliseconds: 1_700_000_000_000)
            let session = try store.createSession(name: "Long", start: start)
            // 50,000 points a second apart, then an hour's gap, then 10,000 more; every 100th row a mark.
            var entries = makeEntries(count: 50_000, start: start)
            entries += makeEntries(count: 10_000, start: start.adding(milliseconds: 53_600_000), seed: 2)
            for i in stride(from: 0, to: entries.count, by: 100) { entries[i].marked = true }
            try store.append(entries, to: session.id)
            let end = entries[entries.count - 1].time
            #expect(try store.entryCount(of: session.id, from: nil, to: nil) == 60_000)

            let samples = try store.sampledTrackPoints(of: session.id, from: start, to: end, count: 1000)
            let times = samples.map(\.time.milliseconds)
            #expect(samples.allSatisfy { !$0.marked && !$0.isHeadingChanged })
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "in time order, none twice")
            // The span is 63,600 s: a slice is 63.6 s; the hour's gap holds 56 or 57 slice starts, which all give
            // the first point after it, taken once.
            #expect(samples.count >= 943 && samples.count <= 945, "\(samples.count)")
            let steps = zip(times, times.dropFirst()).map { ($1 - $0) / 1000 }
            // A slice apart (62 s when a seek met a mark and took the next second), but for the gap itself and the
            // first slice that starts after the point found past it.
            let odd = steps.filter { !(62...65).contains($0) }
            #expect(odd.count == 2 && odd[0] > 3600 && odd[1] < 64, "even, but for the gap: \(odd)")
            #expect(samples.first?.time == start.adding(milliseconds: 1000), "the first row is a mark: the next")

            // A window inside the span, and one of fewer points than asked: each point at most once.
            let window = try store.sampledTrackPoints(
                of: session.id, from: start.adding(milliseconds: 10_000_000),
                to: start.adding(milliseconds: 10_099_000),
                count: 1000)
            #expect(window.count == 99, "100 rows a second apart, one a mark: \(window.count)")
            #expect(try store.lastTrackPoint(of: session.id)?.time == end)
        }
    }
}
