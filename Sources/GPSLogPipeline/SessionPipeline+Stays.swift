// SPDX-License-Identifier: MIT
import GPSLogModel
import GPSLogSampling

extension SessionPipeline {
    /// Writes the stay watcher's events: pauses and resumes as tracking events, an arrival as a new visit row
    /// (whose key `openVisit` keeps), a departure into that row.
    static func store(_ events: [StayEvent], in sink: any SessionSink, session: String, openVisit: inout Int64?) throws
    {
        for event in events {
            switch event {
            case .paused(let fix), .resumed(let fix):
                let action: TrackingAction = if case .paused = event { .paused } else { .resumed }
                try sink.addTrackingEvent(
                    TrackingEvent(action: action, time: fix.time, latitude: fix.latitude, longitude: fix.longitude),
                    to: session)
            case .arrived(let visit):
                openVisit = try sink.addVisit(visit, to: session)
            case .departed(var visit):
                visit.key = openVisit
                try sink.setDeparture(of: visit)
                openVisit = nil
            }
        }
    }
}
