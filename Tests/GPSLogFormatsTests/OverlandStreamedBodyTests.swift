// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogTestSupport
import Testing

@testable import GPSLogFormats

/// An Overland batch is read by the streaming reader (`Body.streamed`) and, whenever that reader is not sure,
/// by `JSONDecoder` (`Body.decoded`). Whatever the streaming reader gives must be exactly what JSONDecoder gives.
@Suite(.ownThreads)
struct OverlandStreamedBodyTests {
    static let feature =
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[5.3136167,52.850155,12]},"properties":{"timestamp":"2026-01-01T00:00:01Z","altitude":1.5,"speed":0,"course":-1,"horizontal_accuracy":5,"vertical_accuracy":3,"speed_accuracy":-1,"course_accuracy":0.5,"battery_level":0.87,"battery_state":"unplugged","motion":["driving","stationary"],"device_id":"phone","wifi":"home","unique_id":"x"}}"#

    /// Bodies the streaming reader must take: as Overland and `export --format overland` write them, and oddities
    /// JSONDecoder takes too.
    static let taken: [String] = [
        #"{"locations":[\#(feature)],"trip":{"mode":"bicycle","start":"2026-01-01T00:00:00Z","distance":5}}"#,
        #"{"locations":[]}"#,
        #"{"locations":[],"trip":null}"#,
        "\u{FEFF}{\"locations\":[\(feature)]}",
        // Repeated keys: the first is read.
        #"{"locations":[{"properties":{"timestamp":"a","timestamp":"b","speed":1,"speed":"x"}}],"locations":5}"#,
        // What JSONDecoder never reads is not checked: another geometry's coordinates, unknown keys' values.
        #"{"locations":[{"geometry":{"coordinates":[[1,2]],"type":"LineString"},"properties":{"timestamp":"a"}}]}"#,
        #"{"locations":[{"geometry":null,"properties":{"timestamp":"a","x":{"y":[1e300,null,true]}}}]}"#,
        #"{"locations":[{"geometry":{"type":null,"coordinates":"x"},"properties":{"timestamp":"a"}}]}"#,
        // name: text, or no text for any other value.
        #"{"locations":[{"properties":{"timestamp":"a","name":5}},{"properties":{"timestamp":"a","name":null}}]}"#,
        #"{"locations":[{"properties":{"timestamp":"a","name":{"a":[1]}}},{"properties":{"timestamp":"a","name":"A \"b\" \u00e9\ud83c\udfd4\u0000"}}]}"#,
        #"{"locations":[{"properties":{"timestamp":"a","speed":-0,"altitude":0.000,"course":1E+2,"battery_level":-0.0}}]}"#,
        #"{"locations":[{"properties":{"timestamp":"a","speed":123456789012345678901234567890,"altitude":1.7976931348623157e308}}]}"#,
        #"{"_type":"location","locations":[]}"#,
        " \r\n\t{ \"locations\" : [ ] } \n",
    ]

    /// Bodies it must leave to JSONDecoder (which refuses them, or reads them otherwise).
    static let left: [String] = [
        "", "[]", "5", "{", #"{"_type":"location","lat":52,"lon":5,"tst":1700000000}"#, #"{"locations":null}"#,
        #"{"locations":5}"#, #"{"locations":[5]}"#, #"{"locations":[{}]}"#, #"{"locations":[]} x"#,
        #"{"locations":[],"trip":5}"#, #"{"locations":[],"trip":{"mode":1}}"#,
        #"{"locations":[{"properties":{"timestamp":null}}]}"#, #"{"locations":[{"properties":{"timestamp":1}}]}"#,
        #"{"locations":[{"properties":{"timestamp":"a","speed":true}}]}"#,
        #"{"locations":[{"properties":{"timestamp":"a","speed":"1"}}]}"#,
        #"{"locations":[{"properties":{"timestamp":"a","speed":1e400}}]}"#,
        #"{"locations":[{"properties":{"timestamp":"a","speed":1e-400}}]}"#,
        #"{"locations":[{"properties":{"timestamp":"a","speed":5e-324}}]}"#,
        // JSONDecoder refuses 0e1 to 0e9 and takes 0e10: a zero with an exponent is its to read.
        #"{"locations":[{"properties":{"timestamp":"a","speed":0e9}}]}"#,
        #"{"locations":[{"properties":{"timestamp":"a","speed":0e10}}]}"#,
        #"{"locations":[{"properties":{"timestamp":"a","motion":[null]}}]}"#,
        #"{"locations":[{"properties":{"timestamp":"a","motion":"x"}}]}"#,
        #"{"locations":[{"properties":{"timestamp":"a","name":"\udc00"}}]}"#,
        #"{"locations":[{"properties":{"timestamp":"a","other":01}}]}"#,
        #"{"locations":[{"geometry":5,"properties":{"timestamp":"a"}}]}"#,
        #"{"locations":[{"geometry":{"type":5},"properties":{"timestamp":"a"}}]}"#,
        #"{"locations":[{"geometry":{"type":"Point"},"properties":{"timestamp":"a"}}]}"#,
        #"{"locations":[{"geometry":{"type":"Point","coordinates":[1]},"properties":{"timestamp":"a"}}]}"#,
        #"{"locations":[{"geometry":{"type":"Point","coordinates":[1,false]},"properties":{"timestamp":"a"}}]}"#,
        #"{"locations":[{"properties":{"timestamp":"a","wifi":""# + String(repeating: "w", count: 70_000) + #""}}]}"#,
    ]

    /// The body as text, every stored property included (Doubles written to be read back exactly).
    static func described(_ body: OverlandPayload.Body?) -> String { body.map { "\($0)" } ?? "refused" }

    @Test func theStreamingReaderTakesWhatJSONDecoderTakesAlike() throws {
        for text in Self.taken {
            let data = Data(text.utf8)
            let streamed = try #require(OverlandPayload.Body.streamed(data), "\(text)")
            let decoded = try OverlandPayload.Body.decoded(data, source: "t")
            #expect(Self.described(streamed) == Self.described(decoded), "\(text)")
        }
        for text in Self.left {
            #expect(OverlandPayload.Body.streamed(Data(text.utf8)) == nil, "\(text)")
        }
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Exports/sample.overland.json")
        let data = try Data(contentsOf: sample)
        let streamed = try #require(OverlandPayload.Body.streamed(data))
        #expect(Self.described(streamed) == Self.described(try OverlandPayload.Body.decoded(data, source: "t")))
    }

    /// Numbers in every form JSON allows, in a property and in a Point's coordinates: what the streaming reader
    /// takes, JSONDecoder takes as the same Double.
    @Test func numbersAreReadAsJSONDecoderReadsThem() {
        let mantissas = [
            "0", "1", "9", "-1", "-0", "0.0", "0.5", "10", "12345678901234567890", "0.000001", "-3.25", "4.9",
        ]
        let exponents = ["", "e0", "e1", "e9", "E1", "e+1", "e-1", "e10", "e-10", "e308", "e-308", "e-320", "e-324"]
        var streamedCount = 0
        for m in mantissas {
            for e in exponents {
                let n = m + e
                let text =
                    #"{"locations":[{"geometry":{"type":"Point","coordinates":[5,\#(n)]},"properties":{"timestamp":"a","speed":\#(n)}}]}"#
                let data = Data(text.utf8)
                guard let streamed = OverlandPayload.Body.streamed(data) else { continue }
                streamedCount += 1
                let decoded = try? OverlandPayload.Body.decoded(data, source: "t")
                #expect(Self.described(streamed) == Self.described(decoded), "\(n)")
            }
        }
        #expect(streamedCount > 80)
    }

    /// Bodies changed at random (bytes replaced by JSON's tokens, cut, repeated): whatever the streaming reader
    /// takes, JSONDecoder takes and reads the same.
    @Test func mutatedBodiesAreReadAlikeOrLeftToJSONDecoder() {
        let tokens = [
            "null", "true", "0", "-0", "1e400", "1e-400", "01", "5e-324", "\"x\"", "\"\\ud800\"", "[", "]", "{", "}",
            ",", ":", "\"", "\\", "[1,2]", "{}", "\"name\":", "\"timestamp\":", "\"Point\"", "\"speed\":1,", " ",
            "\u{FF}", "\"coordinates\":[]", "\"locations\":[]", "0e5", "1e1", "-0e0", "0.0", "e", "E-1",
        ].map { Array($0.utf8) }
        let seeds = Self.taken.map { Array($0.utf8) }
        var rng = SplitMix64(seed: 20_261_128)
        var streamedCount = 0
        for round in 0..<20_000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0...Int(rng.next() % 3) {
                let at = Int(rng.next() % UInt64(bytes.count + 1))
                switch rng.next() % 4 {
                case 0: bytes.insert(contentsOf: tokens[Int(rng.next() % UInt64(tokens.count))], at: at)
                case 1:
                    let end = min(bytes.count, at + Int(rng.next() % 6))
                    bytes.replaceSubrange(at..<end, with: tokens[Int(rng.next() % UInt64(tokens.count))])
                case 2: bytes.removeSubrange(at..<min(bytes.count, at + Int(rng.next() % 4) + 1))
                default:
                    let end = min(bytes.count, at + Int(rng.next() % 40))
                    bytes.insert(contentsOf: bytes[at..<end], at: at)
                }
            }
            let data = Data(bytes)
            guard let streamed = OverlandPayload.Body.streamed(data) else { continue }
            streamedCount += 1
            let decoded = try? OverlandPayload.Body.decoded(data, source: "t")
            #expect(
                Self.described(streamed) == Self.described(decoded), "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(streamedCount > 1_000, "only \(streamedCount) mutated bodies were read by the streaming reader")
    }
}
