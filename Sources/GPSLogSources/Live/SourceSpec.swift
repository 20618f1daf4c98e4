// SPDX-License-Identifier: MIT
import Foundation

/// The `--source` option: `gpsd://HOST:PORT`, `nmea:PATH[?baud=N]` or `replay:PATH[?speed=N]`.
public enum SourceSpec: Equatable, Sendable {
    case gpsd(host: String, port: Int)
    case nmea(path: String, baud: Int?)
    case replay(path: String, speed: Double)

    /// The default source: a gpsd on this machine.
    public static let defaultSource = SourceSpec.gpsd(host: "127.0.0.1", port: 2947)

    /// The spec as `--source` takes it (`parse(spec.text) == spec`).
    public var text: String {
        switch self {
        case .gpsd(let host, let port): "gpsd://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        case .nmea(let path, let baud): "nmea:\(path)" + (baud.map { "?baud=\($0)" } ?? "")
        case .replay(let path, let speed): "replay:\(path)?speed=\(speed)"
        }
    }

    /// Parses a `--source` value; the error says what forms are accepted.
    public static func parse(_ text: String) throws -> SourceSpec {
        func split(_ rest: Substring) -> (String, [String: String]) {
            let parts = rest.split(separator: "?", maxSplits: 1)
            var options: [String: String] = [:]
            if parts.count == 2 {
                for pair in parts[1].split(separator: "&") {
                    let kv = pair.split(separator: "=", maxSplits: 1)
                    options[String(kv[0])] = kv.count == 2 ? String(kv[1]) : ""
                }
            }
            return (parts.first.map(String.init) ?? "", options)
        }
        if text.hasPrefix("gpsd://") {
            let rest = text.dropFirst("gpsd://".count)
            var host = "127.0.0.1"
            var port = 2947
            if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {  // [::1]:2947
                host = String(rest[rest.index(after: rest.startIndex)..<close])
                let tail = rest[rest.index(after: close)...]
                if tail.hasPrefix(":") { port = Int(tail.dropFirst()) ?? -1 }
            } else if let colon = rest.lastIndex(of: ":") {
                host = String(rest[..<colon])
                port = Int(rest[rest.index(after: colon)...]) ?? -1
            } else if !rest.isEmpty {
                host = String(rest)
            }
            guard (1...65535).contains(port), !host.isEmpty else {
                throw SourceError.badSpec("'\(text)': expected gpsd://HOST:PORT with a port from 1 to 65535")
            }
            return .gpsd(host: host, port: port)
        }
        if text.hasPrefix("nmea:") {
            let (path, options) = split(text.dropFirst("nmea:".count))
            guard !path.isEmpty else {
                throw SourceError.badSpec(
                    "'\(text)': expected nmea:PATH, nmea:/dev/ttyUSB0?baud=9600 or nmea:- for stdin")
            }
            var baud: Int?
            if let b = options["baud"] {
                guard let n = Int(b), SerialPort.supportedBauds.contains(n) else {
                    throw SourceError.badSpec(
                        "'\(text)': baud must be one of \(SerialPort.supportedBauds.map(String.init).joined(separator: ", "))"
                    )
                }
                baud = n
            }
            return .nmea(path: path, baud: baud)
        }
        if text.hasPrefix("replay:") {
            let (path, options) = split(text.dropFirst("replay:".count))
            guard !path.isEmpty else { throw SourceError.badSpec("'\(text)': expected replay:PATH[?speed=N]") }
            var speed = 1.0
            if let s = options["speed"] {
                guard let v = Double(s), v >= 0, v.isFinite else {
                    throw SourceError.badSpec("'\(text)': speed must be a number >= 0 (0 replays as fast as possible)")
                }
                speed = v
            }
            return .replay(path: path, speed: speed)
        }
        throw SourceError.badSpec(
            "unknown source '\(text)': use gpsd://HOST:PORT, nmea:PATH[?baud=N] or replay:PATH[?speed=N]")
    }
}

/// Why a source could not start or went wrong.
public enum SourceError: LocalizedError, Equatable {
    case badSpec(String)
    case cannotOpen(path: String, reason: String)
    case unsupportedReplay(path: String)

    /// What went wrong, naming the source or file, for people.
    public var errorDescription: String? {
        switch self {
        case .badSpec(let text): text
        case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
        case .unsupportedReplay(let path): "\(path): replay reads NMEA logs and GPX files; this is neither"
        }
    }
}
