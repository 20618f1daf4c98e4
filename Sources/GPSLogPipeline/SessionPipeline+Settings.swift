// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSampling

/// Settings changed while a recording runs (`gpslog monitoring`, a server's `set`): they take effect from the next fix.
extension SessionPipeline {
    /// Switches the sampler to an OwnTracks monitoring mode (nil: GPS Log's interval sampling); its rules measure
    /// from the last entry, so the switch takes effect at the next fix.
    public mutating func setMonitoring(_ mode: MonitoringMode?) {
        sampler.policy.monitoring = mode
    }

    /// Changes the main sampling policy from the next fix on (a server's `set`: min distance, min time, accuracy);
    /// during a trip, the trip's settings stay over it.
    public mutating func updatePolicy(_ change: (inout SamplingPolicy) -> Void) {
        guard trip != nil, var main = mainPolicy else { return change(&sampler.policy) }
        change(&main)
        mainPolicy = main
        reapplyTripSampling()
    }

    /// Changes the trip settings (a server's `set` under `trip`): for the trips to come, and the one running.
    public mutating func updateTripSampling(_ change: (inout TripSampling) -> Void) {
        change(&tripSampling)
        if trip != nil { reapplyTripSampling() }
    }

    mutating func reapplyTripSampling() {
        guard let main = mainPolicy else { return }
        var policy = tripSampling.applied(to: main)
        policy.monitoring = sampler.policy.monitoring
        sampler.policy = policy
    }

    /// Changes the automatic pause and visits from the next fix on (a server's `set`); nil or rules that watch
    /// nothing turn both off.
    public mutating func setStayRules(_ rules: StayRules?) {
        guard let rules, rules.watches else {
            stays = nil
            return
        }
        if stays == nil {
            stays = StayWatcher(rules: rules, policy: sampler.policy)
        } else {
            stays!.update(rules: rules)
        }
    }
}
