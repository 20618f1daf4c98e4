// SPDX-License-Identifier: MIT
import Foundation
import GPSLogBundledRecording
import GPSLogModel
import GPSLogSampling
import GPSLogSources
import GPSLogStore
import GPSLogTestSupport
import Logging
import Testing

@testable import GPSLogRecording

@Suite(.ownThreads)
struct RecordingRuntimeTests {
    /// The recorder's SQLite work (every batch, commit and mark) runs on its own thread, not on Swift's cooperative
    /// pool, where a commit blocked by another process's lock would stall every other task.
    @Test func theRecorderRunsOnAThreadOfItsOwn() async throws {
        try await withTemporaryDirectory { dir in
            let thread = StoreThread()
            let source = ReplaySource(input: .nmeaText(Sample.nmea, name: "sample"), speed: 0)
            let recorder = try SessionRecorder(
                databasePath: dir + "/db.sqlite", naming: .fixed("Pinned"), mode: nil, policy: SamplingPolicy(),
                source: source,
                thread: thread,
                logger: Logger(label: "test"))
            #expect(!thread.isCurrent, "the test itself is not on the recorder's thread")
            var batches = 0
            for try await batch in source.events() {
                try await recorder.handle(batch)
                batches += 1
                #expect(await recorder.runsOnItsOwnThread())
            }
            let session = try #require(try await recorder.finish())
            #expect(batches > 0 && session.name == "Pinned")
            #expect(await recorder.totals.entries > 100)
            await thread.shutdown()
        }
    }

    /// Requests are typed on our side and stay the same JSON lines on the wire, so `gpslog mark` of one version
    /// talks to `gpslog record` of the next; an unknown command is refused by the decoder, not by a string switch.
    @Test func controlRequestsKeepTheirWireFormat() throws {
        let cases: [(ControlRequest, String)] = [
            (.mark(label: "Buoy 7"), #"{"command":"mark","label":"Buoy 7"}"#),
            (.mark(label: nil), #"{"command":"mark"}"#),
            (.status, #"{"command":"status"}"#), (.stop, #"{"command":"stop"}"#),
            (.sendNow, #"{"command":"send-now"}"#),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for (request, line) in cases {
            #expect(String(decoding: try encoder.encode(request), as: UTF8.self) == line)
            #expect(try JSONDecoder().decode(ControlRequest.self, from: Data(line.utf8)) == request)
        }
        for bad in [#"{"command":"reboot"}"#, #"{"label":"x"}"#, #"{"command":7}"#, "[]"] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(ControlRequest.self, from: Data(bad.utf8)) }
        }
    }

    /// `--source`'s default is the default spec's own text, and every spec's text parses back to it.
    @Test func sourceSpecsRoundTripThroughTheirText() throws {
        let specs: [SourceSpec] = [
            .defaultSource, .gpsd(host: "::1", port: 2948), .nmea(path: "/dev/ttyUSB0", baud: 4800),
            .nmea(path: "-", baud: nil),
            .replay(path: "sample", speed: 15),
        ]
        for spec in specs { #expect(try SourceSpec.parse(spec.text) == spec, "\(spec.text)") }
        #expect(SourceSpec.defaultSource.text == "gpsd://127.0.0.1:2947")
    }
}
