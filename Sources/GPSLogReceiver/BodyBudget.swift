// SPDX-License-Identifier: MIT
import GPSLogSystem

/// How many bytes of request bodies are read and decoded at once. A 16 MiB batch costs about six times its size while
/// it is decoded; eight at once took the process from 44 MB to 340 MB, and 1.8 GB before the decoding was typed.
/// Requests beyond the budget wait their turn, so the peak stays near `limit` times that factor whatever the number
/// of phones, and when the last large body is done the freed memory is handed back to the system.
actor BodyBudget {
    let limit: Int
    private var inFlight = 0
    private var waiting: [(bytes: Int, resume: CheckedContinuation<Void, Never>)] = []
    /// Bodies at least this large hand their memory back when they are done.
    static let trimThreshold = 1 << 20

    init(limit: Int) { self.limit = limit }

    /// Waits until `bytes` more fit in the budget (one request always fits, however large), then takes them.
    func acquire(_ bytes: Int) async {
        if inFlight == 0 || (waiting.isEmpty && inFlight + bytes <= limit) {
            inFlight += bytes
            return
        }
        await withCheckedContinuation { waiting.append((bytes, $0)) }
    }

    /// Gives `bytes` back and lets waiting requests in, in arrival order.
    func release(_ bytes: Int) {
        inFlight -= bytes
        while let next = waiting.first, inFlight == 0 || inFlight + next.bytes <= limit {
            waiting.removeFirst()
            inFlight += next.bytes
            next.resume.resume()
        }
        // The allocator keeps freed heap for later; after a large body nothing else is coming soon.
        if inFlight == 0 && bytes >= Self.trimThreshold { returnFreedMemoryToSystem() }
    }

    /// Runs `body` with `bytes` of the budget.
    func with<T: Sendable>(_ bytes: Int, _ body: @Sendable () async throws -> T) async rethrows -> T {
        await acquire(bytes)
        do {
            let result = try await body()
            release(bytes)
            return result
        } catch {
            release(bytes)
            throw error
        }
    }
}
