// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSampling

extension SessionPipeline {
    /// A trip inside a recording: a session of its own with its mode.
    public struct Trip: Sendable, Equatable {
        /// The trip's mode, given to its session.
        public var mode: TripMode
        /// Its name; nil: the mode and the start time.
        public var name: String?
    }

    /// Starts a trip: the current session ends, and the next stored fix opens the trip's session, with `mode` and
    /// the trip settings (`tripSampling`) over the main ones.
    /// - Throws: `SessionPipelineError.tripRunning` when a trip already runs.
    public mutating func startTrip(mode: TripMode, name: String?, dropped: DroppedFixes? = nil) throws {
        guard trip == nil else { throw SessionPipelineError.tripRunning(mode: trip!.mode) }
        if session != nil { try split(.trip, dropped: dropped ?? gate.dropped) }
        trip = Trip(mode: mode, name: name)
        mainPolicy = sampler.policy
        sampler.policy = tripSampling.applied(to: sampler.policy)
    }

    /// Ends the running trip: its session ends (and says whether the automatic pause ended it), the main settings
    /// come back, and the next stored fix opens a session of the recording again.
    /// - Returns: the trip's session, nil when no fix came during the trip.
    /// - Throws: `SessionPipelineError.noTrip` when no trip runs.
    /// - Parameters:
    ///   - automatically: the automatic pause ends the trip (its session says so).
    ///   - dropped: the gate's counts as of the fix being added, when a fix ends the trip.
    public mutating func stopTrip(automatically: Bool = false, dropped: DroppedFixes? = nil) throws -> Session? {
        guard trip != nil else { throw SessionPipelineError.noTrip }
        // Whatever happens to the write, the trip is over and the main settings are back.
        defer {
            trip = nil
            if let mainPolicy {
                // Keep a monitoring mode switched during the trip.
                var policy = mainPolicy
                policy.monitoring = sampler.policy.monitoring
                sampler.policy = policy
            }
            mainPolicy = nil
            tripStoppedAutomatically = false
        }
        guard session != nil else { return nil }
        // `finish` writes it with the trip's end, in one transaction.
        tripStoppedAutomatically = automatically
        try split(.trip, dropped: dropped ?? gate.dropped)
        var ended = splitOff?.session
        ended?.stoppedAutomatically = automatically
        return ended
    }

}

/// What a writer refuses.
public enum SessionPipelineError: LocalizedError, Equatable {
    /// `trip start` while a trip runs.
    case tripRunning(mode: TripMode)
    /// `trip stop` without a trip.
    case noTrip

    /// What was refused and what to do, for people.
    public var errorDescription: String? {
        switch self {
        case .tripRunning(let mode): "a \(mode.rawValue) trip is already running: stop it first (gpslog trip stop)"
        case .noTrip: "no trip is running: start one with gpslog trip start"
        }
    }
}
