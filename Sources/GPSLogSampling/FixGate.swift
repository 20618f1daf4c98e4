// SPDX-License-Identifier: MIT
import GPSLogModel

/// Keeps implausible fixes from the sampler and heals itself, going by the fixes' own times (never the system clock:
/// a board without a real-time clock has none worth reading).
///
/// A fix is implausible after the last one let through (the anchor) when it has no position (NaN, out of range, 0, 0),
/// when its time is earlier than the anchor's or more than a day after it, or when reaching it from the anchor takes
/// a speed above `maxSpeed` (a multipath jump, a receiver's first wild fix). An implausible fix is held back; when the
/// next fix agrees with the anchor again, what was held is dropped and counted. When `confirmations` held fixes in a
/// row agree with each other instead, the world really moved on (the receiver's time was corrected, the board was
/// carried somewhere with its receiver off): they are let through and the last becomes the anchor. One bad fix
/// therefore never costs the good ones after it, and a wrong first fix never blocks a recording for good.
public struct FixGate: Sendable {
    /// The fastest believable speed, in metres a second; nil: no limit (`--mode plane`).
    public let maxSpeed: Double?
    /// Held fixes in a row that must agree with each other to be believed.
    public let confirmations: Int
    /// How far ahead of the anchor a fix may be (a day: beyond, the decoders' own time check applies as well).
    public static let maxAheadMilliseconds: Int64 = 86_400_000
    /// Below this step, the speed between two fixes is measured over a second: at 10 Hz, a few metres of noise
    /// between epochs would otherwise read as hundreds of km/h.
    static let minimumStepMilliseconds: Int64 = 1000

    /// The last fix let through.
    public private(set) var anchor: Fix?
    private var held: [(fix: Fix, reason: Reason)] = []
    /// What was dropped, by reason.
    public private(set) var dropped = DroppedFixes()

    enum Reason { case time, speed }

    /// A gate with no anchor yet; `maxSpeed` in metres a second, nil for no limit.
    public init(maxSpeed: Double?, confirmations: Int = 3) {
        self.maxSpeed = maxSpeed
        self.confirmations = confirmations
    }

    /// Takes one fix; calls `deliver` for each fix let through, in order, with the counts of what was dropped so far.
    /// `moved` is true for the first fix of a new timeline (held fixes that were believed): a sampler must then
    /// forget what came before.
    public mutating func admit(
        _ fix: Fix, _ deliver: (_ fix: Fix, _ moved: Bool, _ dropped: DroppedFixes) throws -> Void
    ) rethrows {
        guard fix.hasPlausiblePosition else {
            dropped.position += 1
            return
        }
        guard let anchor, let reason = problem(fix, after: anchor) else {
            // Agrees with the anchor (or is the first fix): whatever was held was an outlier.
            dropHeld()
            self.anchor = fix
            try deliver(fix, false, dropped)
            return
        }
        held.append((fix, reason))
        if heldAgree() {
            let chain = held.suffix(confirmations).map(\.fix)
            held.removeLast(confirmations)
            dropHeld()
            for (i, f) in chain.enumerated() {
                self.anchor = f
                try deliver(f, i == 0, dropped)
            }
        } else if held.count > 4 * confirmations {
            count(held.removeFirst().reason)  // garbage that never agrees: memory stays bounded
        }
    }

    /// The end of the stream: what is still held contradicts the anchor, and is dropped.
    public mutating func finish() { dropHeld() }

    /// Why `fix` cannot follow `anchor`, or nil when it can.
    func problem(_ fix: Fix, after anchor: Fix) -> Reason? {
        let step = fix.time.milliseconds - anchor.time.milliseconds
        if step < 0 || step > Self.maxAheadMilliseconds { return .time }
        if let maxSpeed {
            let metres = Geo.distance(
                lat1: anchor.latitude, lon1: anchor.longitude, lat2: fix.latitude, lon2: fix.longitude)
            let seconds = Double(max(step, Self.minimumStepMilliseconds)) / 1000
            if metres / seconds > maxSpeed { return .speed }
        }
        return nil
    }

    /// True when the last `confirmations` held fixes follow one another plausibly.
    private func heldAgree() -> Bool {
        guard held.count >= confirmations else { return false }
        let chain = held.suffix(confirmations).map(\.fix)
        return zip(chain, chain.dropFirst()).allSatisfy { problem($1, after: $0) == nil }
    }

    private mutating func dropHeld() {
        for h in held { count(h.reason) }
        held.removeAll(keepingCapacity: true)
    }

    private mutating func count(_ reason: Reason) {
        switch reason {
        case .time: dropped.time += 1
        case .speed: dropped.speed += 1
        }
    }
}
