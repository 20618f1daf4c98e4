// SPDX-License-Identifier: MIT
import GPSLogGeocoding
import GPSLogModel
import GPSLogSampling
import GPSLogSources
import GPSLogUpload

/// Everything `gpslog record` asks for: what to record, from where, and what runs beside it.
public struct RecordingPlan: Sendable {
    /// The SQLite file to record into (`--db`).
    public var databasePath: String
    /// A name, or a template filled from each session's first fix.
    public var naming: SessionNaming
    /// The trip mode of the recording's sessions (`--mode`); nil: none.
    public var mode: TripMode?
    /// What the sampler keeps (`--interval`, `--min-distance`, ..., the monitoring mode).
    public var policy: SamplingPolicy
    /// When to start a new session; nil: one session until the end.
    public var splits: SplitRules?
    /// Where the fixes come from (`--source`).
    public var source: SourceSpec
    /// Reverse geocoding while recording; nil: off.
    public var geocoding: Geocoding?
    /// Live sending; nil: off.
    public var sending: Sending?
    /// How long gpsd may send nothing before the connection is dropped and made again; nil: never.
    public var watchdog: Duration? = GPSDSource.defaultWatchdog
    /// How long entries may wait for their commit (`--commit-every`): what a kill -9 can lose.
    public var commitEvery: Duration = SessionRecorder.defaultCommitEvery
    /// The automatic pause and visits (`--pause-when-stopped`, `--resume-radius`, `--visits`); nil: neither.
    public var stays: StayRules?
    /// Overland's Trip Settings: the sampling a trip (`gpslog trip start`) uses over the main settings.
    public var tripSampling = TripSampling()
    /// OwnTracks' tag for every entry from the start (`record --tag`).
    public var tag: String?
    /// Live publishing to an MQTT broker, as the OwnTracks apps publish (`record --send mqtt://`); nil: off.
    public var mqtt: MQTTSending?

    /// Creates a plan from its parts; the settings not taken here start at their defaults (nil: off).
    public init(
        databasePath: String, naming: SessionNaming, mode: TripMode?, policy: SamplingPolicy,
        splits: SplitRules? = nil, source: SourceSpec, geocoding: Geocoding? = nil, sending: Sending? = nil
    ) {
        self.databasePath = databasePath
        self.naming = naming
        self.mode = mode
        self.policy = policy
        self.splits = splits
        self.source = source
        self.geocoding = geocoding
        self.sending = sending
    }

    /// The geocoder beside the recording (see `gpslog geocode`).
    public struct Geocoding: Sendable {
        /// The provider (`--provider`), offline or over the network.
        public var provider: GeocoderSpec
        /// Contact for the User-Agent (the public Nominatim requires one).
        public var contact: String?
        /// The requested rate; the provider's default when nil.
        public var rate: GeocodeRate?
        /// Creates the geocoding settings from their parts.
        public init(provider: GeocoderSpec, contact: String?, rate: GeocodeRate?) {
            self.provider = provider
            self.contact = contact
            self.rate = rate
        }
    }

    /// Live sending to an Overland or OwnTracks server (the database is the queue; see `gpslog upload`).
    public struct Sending: Sendable {
        /// The server's endpoint (`--send URL`), Overland's or OwnTracks'.
        public var destination: Destination
        /// Batching, retries and timeouts, as `gpslog upload` takes them.
        public var options: Uploader.Options
        /// How often to send; nil: only on `gpslog send-now` and at the end.
        public var interval: Duration?
        /// Accept a server's `send_interval: off` and `tracking_mode: off`, which leave a device that never calls
        /// back (`--allow-remote-off`).
        public var allowRemoteOff = false
        /// The `record` options given on the command line (`min-distance`, `send-interval`, ...): they win over
        /// the settings a server sent in an earlier run.
        public var explicitOptions: Set<String> = []
        /// Overland's Trip Settings for sending: the batch size and logging mode while a trip runs; nil: the main.
        public var tripBatchSize: Int?
        /// The logging mode while a trip runs (`--trip-logging-mode`); nil: the main one.
        public var tripLoggingMode: LoggingMode?
        /// Creates the sending settings; the others start off (no remote off, no trip settings).
        public init(destination: Destination, options: Uploader.Options, interval: Duration?) {
            self.destination = destination
            self.options = options
            self.interval = interval
        }
    }
}

extension RecordingPlan {
    /// Live publishing to an MQTT broker (the database is the queue; see `gpslog upload --url mqtt://`).
    public struct MQTTSending: Sendable {
        /// The broker, OwnTracks' topic and the credentials (`--send mqtt://`).
        public var destination: MQTTDestination
        /// How much goes at once and how fast.
        public var options: MQTTPublisher.Options
        /// How often to look for committed entries; nil: only on `gpslog send-now` and at the end.
        public var interval: Duration?
        /// Creates the publishing settings from their parts.
        public init(destination: MQTTDestination, options: MQTTPublisher.Options, interval: Duration?) {
            self.destination = destination
            self.options = options
            self.interval = interval
        }
    }
}
