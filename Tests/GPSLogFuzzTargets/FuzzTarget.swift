// SPDX-License-Identifier: MIT

/// The parsers gpslog runs on bytes from outside, each as a fuzz target: libFuzzer drives them in `gpslog-fuzz`
/// (`make fuzz`), and `GPSLogFuzzTargetsTests` replays every committed seed and regression file through the same
/// functions in a plain `swift test`.
///
/// Each target feeds its input through the real decoder that `record`, `import`, `convert` or `serve` uses, and checks
/// the invariants with `FuzzInvariant` (a failure stops the process with a message, which libFuzzer reports as a
/// crash): no crash and no hang, every accepted fix or entry within range and one the store would take, and every
/// refusal a documented error that names its place.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// An NMEA 0183 log through `NMEAFileReader` and `NMEADecoder` (`record --source nmea:FILE`, `import`).
    case nmea
    /// A GPX file through `GPXImporter` into a `TrackSpool` (`convert`; `import` runs the same reader and builder).
    case gpx
    /// A gpslog session XML export through `SessionXMLImporter` into a store in a temporary folder (`import`).
    case sessionXML = "session-xml"
    /// Any file through `ImportFormat.detect`, then the reader it picks (what `import` does with a file of unknown
    /// kind).
    case detect
    /// An Overland batch body through `OverlandPayload` (`import`, and `serve` through `ReceivedPayload`).
    case overland
    /// One OwnTracks message through `OwnTracksMessage` and `ReceivedPayload` (`serve`).
    case ownTracks = "owntracks"
    /// OwnTracks JSON lines or a Recorder `.rec` file through `OwnTracksImporter`'s line reading (`import`).
    case rec
    /// A control-socket request through `ControlRequest.read` (the recorder's `mark`, `status`, `stop`).
    case control
    /// A file of regions through `RegionFile` (`region import`): OwnTracks' waypoints export, or GeoJSON polygons
    /// checked with GEOS.
    case waypoints
    /// Google location history through `GoogleLocationImporter` (`import`): Records.json, Semantic Location History,
    /// the phone's Timeline export, a session per day.
    case google
    /// A KML or KMZ file through `KMLImporter` into a `TrackSpool` (`convert`; `import` runs the same reader).
    case kml
    /// A TCX file through `TCXImporter` into a `TrackSpool`.
    case tcx

    /// The largest input worth trying (libFuzzer's `-max_len`): large enough for several sentences, points or
    /// locations, small enough for thousands of runs a second. Whole-file size limits are not what these look for.
    public var maxLength: Int {
        switch self {
        case .control: 4096
        case .nmea, .rec: 32768
        default: 16384
        }
    }

    /// Runs the target on one input.
    public func run(_ input: UnsafeRawBufferPointer) {
        switch self {
        case .nmea: FuzzTarget.nmea(input)
        case .gpx: FuzzTarget.gpx(input)
        case .sessionXML: FuzzTarget.sessionXML(input)
        case .detect: FuzzTarget.detect(input)
        case .overland: FuzzTarget.overland(input)
        case .ownTracks: FuzzTarget.ownTracks(input)
        case .rec: FuzzTarget.rec(input)
        case .control: FuzzTarget.control(input)
        case .waypoints: FuzzTarget.waypoints(input)
        case .google: FuzzTarget.google(input)
        case .kml: FuzzTarget.kml(input)
        case .tcx: FuzzTarget.tcx(input)
        }
    }

    /// Runs the target on one input held in an array (the replay tests).
    public func run(_ input: [UInt8]) {
        input.withUnsafeBytes { run($0) }
    }
}
