// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// The OwnTracks Recorder's JSON answers of locations, and one message of an OwnTracks file as `import` reads it.
///
/// The Recorder's answers are one object: `ocat`'s default output `{"count":N,"locations":[...]}` (ocat.c) and its
/// HTTP API's `/api/0/locations` `{"count":N,"data":[...],"status":200}` (http.c), each element a `.rec` file's
/// location message as the Recorder enriched it (`ghash`, `isorcv`, `isotst`, `addr`...: not kept); also a bare
/// `{"locations":[...]}` of OwnTracks messages that is not an Overland batch. `ocat --fields` may leave `_type` out,
/// so an element without one is a location.
public enum OwnTracksRecorderOutput {
    /// True when `head` (a file's first bytes) is such an object rather than OwnTracks JSON lines: its first key is
    /// `count`, `locations` or `data`, or its first line is `{` alone (`ocat` indents its output).
    public static func isDocument(_ head: Data) -> Bool {
        let text = String(decoding: head.prefix(4096), as: UTF8.self)
        let trimmed = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        guard trimmed.first == "{" else { return false }
        let afterBrace = trimmed.dropFirst()
        if let firstLine = trimmed.split(separator: "\n", omittingEmptySubsequences: false).first,
            firstLine.trimmingCharacters(in: .whitespaces) == "{"
        {
            return true
        }
        let key = afterBrace.drop { $0.isWhitespace }
        return ["\"count\"", "\"locations\"", "\"data\""].contains { key.hasPrefix($0) }
    }

    /// The messages of such an object, in file order. A bad value is refused naming the element and field
    /// (`data[3].lat`).
    public static func messages(_ data: Data, source: String) throws -> [OwnTracksReceived] {
        let document = try PayloadJSON.decode(Document.self, from: data, source: source, line: 0)
        let check = OwnTracksMessage.Check(source: source)
        return try document.elements.enumerated().map { i, element -> OwnTracksReceived in
            do {
                switch element {
                case .location(let body):
                    return try OwnTracksMessage.location(body, source: source, line: 0).map(OwnTracksReceived.location)
                        ?? .other("location")
                case .transition(let t): return .transition(try check.transition(t))
                case .waypoint(let w): return .waypoints([try check.waypoint(w)])
                case .waypoints(let list): return .waypoints(try check.waypoints(list))
                case .other(let type): return .other(type)
                }
            } catch ImportError.invalidValue(let file, let line, let field, let value) {
                throw ImportError.invalidValue(
                    file: file, line: line, field: "\(document.key)[\(i)].\(field)", value: value)
            }
        }
    }

    /// One message of an OwnTracks file (a JSON line, or the JSON of a `.rec` line): its location, transition or
    /// waypoints, checked as `serve` checks them; any other `_type` (card, lwt, cmd, steps...) as `.other`,
    /// unchecked, since `import` keeps none of them. A message without `_type` is `.other("")`.
    public static func message(_ data: Data, source: String, line: Int) throws -> OwnTracksReceived {
        let body = try PayloadJSON.decode(OwnTracksMessage.Body.self, from: data, source: source, line: line)
        switch body.type {
        case "location"?, "transition"?, "waypoint"?, "waypoints"?:
            return try OwnTracksMessage.received(body, data: data, source: source, line: line)
        case let type: return .other(type ?? "")
        }
    }

    /// The object, its array's elements decoded by `_type`.
    struct Document: Decodable {
        var key: String
        var elements: [Element]

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: JSONKey.self)
            guard let key = ["locations", "data"].first(where: { c.contains(JSONKey($0)) }) else {
                throw DecodingError.keyNotFound(
                    JSONKey("locations"), .init(codingPath: [], debugDescription: "no locations or data array"))
            }
            self.key = key
            elements = try c.decode([Element].self, forKey: JSONKey(key))
        }
    }

    enum Element: Decodable {
        case location(OwnTracksMessage.Body)
        case transition(OwnTracksMessage.TransitionBody)
        case waypoint(OwnTracksMessage.WaypointBody)
        case waypoints([OwnTracksMessage.WaypointBody])
        case other(String)

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: JSONKey.self)
            switch try c.decodeIfPresent(String.self, forKey: JSONKey("_type")) {
            case nil, "location"?: self = .location(try OwnTracksMessage.Body(locationFrom: decoder))
            case "transition"?: self = .transition(try OwnTracksMessage.TransitionBody(from: decoder))
            case "waypoint"?: self = .waypoint(try OwnTracksMessage.WaypointBody(from: decoder))
            case "waypoints"?:
                self = .waypoints(try OwnTracksMessage.WaypointsBody(from: decoder).waypoints ?? [])
            case let type?: self = .other(type)
            }
        }
    }
}
