// SPDX-License-Identifier: MIT

import GPSLogSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
#if canImport(FoundationEssentials)
    import FoundationEssentials  // LocalizedError, without all of Foundation
#else
    import Foundation
#endif

/// Why an NMEA file could not be read.
public enum NMEAFileError: LocalizedError, Equatable, Sendable {
    /// open(2) failed.
    case cannotOpen(path: String, message: String)
    /// read(2) failed part-way.
    case readFailed(path: String, message: String)

    /// What could not be done, naming the file, with the system's reason.
    public var errorDescription: String? {
        switch self {
        case .cannotOpen(let path, let message): return "Cannot open NMEA file \(path): \(message)"
        case .readFailed(let path, let message): return "Cannot read NMEA file \(path): \(message)"
        }
    }
}

/// Streams an NMEA log from a file, or from standard input for `-`, through an ``NMEADecoder``.
///
/// The file is read with read(2) in 64 KiB chunks and split on `\n`, `\r\n` or `\r`; lines are handed to the
/// decoder straight from the read buffer (only a line that straddles two chunks is copied), so memory stays
/// constant whatever the file size.
public struct NMEAFileReader: Sendable {
    /// The file's path, or `-` for standard input.
    public let path: String
    /// The UTC date for logs that carry none (see `NMEADecoder.init(assumedDate:window:)`).
    public let assumedDate: (year: Int, month: Int, day: Int)?

    /// Size of each read(2).
    static let chunkSize = 64 * 1024
    /// A "line" longer than this (binary data, no terminators) is cut into pieces, which then fail to parse.
    static let maxLineLength = 64 * 1024

    /// - Parameters:
    ///   - path: a file path, or `-` for standard input.
    ///   - assumedDate: the UTC date for logs that carry none (see ``NMEADecoder/init(assumedDate:window:)``).
    public init(path: String, assumedDate: (year: Int, month: Int, day: Int)? = nil) {
        self.path = path
        self.assumedDate = assumedDate
    }

    /// Decodes the whole stream, calling `body` for every fix and heading in order, and returns the counters.
    /// Errors thrown by `body` stop the reading and are rethrown. `progress`, when given, sees the counters after
    /// every chunk read (a live source shows its bad-sentence count from it).
    @discardableResult
    public func read(_ body: (SourceEvent) throws -> Void, progress: ((NMEAStatistics) -> Void)? = nil) throws
        -> NMEAStatistics
    {
        var fd: Int32 = STDIN_FILENO
        if path != "-" {
            do {
                fd = try systemCall { open(path, O_RDONLY | O_CLOEXEC) }
            } catch {
                throw NMEAFileError.cannotOpen(path: path, message: error.reason)
            }
        }
        defer { if fd != STDIN_FILENO { close(fd) } }
        return try read(descriptor: fd, body, progress: progress)
    }

    /// Decodes what `fd` delivers until read(2) returns 0, as `read(_:progress:)` does; `path` names it in errors.
    /// The caller opened `fd` and closes it (a serial device, opened and set up once per connection).
    /// - Parameters:
    ///   - fd: an open descriptor to read from.
    ///   - body: called for every fix and heading, in order; what it throws stops the reading.
    ///   - progress: sees the counters after every chunk read; nil: none.
    ///   - waitForInput: called before each read(2); it returns once input is ready, or throws to end the
    ///     reading (a watchdog, a stop). Nil: read(2) waits.
    /// - Returns: the decoder's counters at the end of the input.
    /// - Throws: `NMEAFileError.readFailed` naming `path` when read(2) fails; else what `body` or `waitForInput`
    ///   threw.
    @discardableResult
    public func read(
        descriptor fd: Int32, _ body: (SourceEvent) throws -> Void, progress: ((NMEAStatistics) -> Void)? = nil,
        waitForInput: (() throws -> Void)? = nil
    ) throws -> NMEAStatistics {
        var decoder = NMEADecoder(assumedDate: assumedDate)
        let chunk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: NMEAFileReader.chunkSize)
        defer { chunk.deallocate() }
        var carry: [UInt8] = []
        carry.reserveCapacity(256)

        while true {
            try waitForInput?()
            let n: Int
            do {
                n = try systemCall { readChunk(fd, chunk.baseAddress, NMEAFileReader.chunkSize) }
            } catch {
                throw NMEAFileError.readFailed(path: path, message: error.reason)
            }
            if n == 0 { break }
            let bytes = UnsafeBufferPointer(rebasing: chunk[0..<n])
            var lineStart = 0
            var i = 0
            while i < n {
                let c = bytes[i]
                if c == 0x0A || c == 0x0D {
                    if carry.isEmpty {
                        if i > lineStart {
                            try decoder.feed(line: UnsafeBufferPointer(rebasing: bytes[lineStart..<i]), body)
                        }
                    } else {
                        carry.append(contentsOf: bytes[lineStart..<i])
                        try carry.withUnsafeBufferPointer { try decoder.feed(line: $0, body) }
                        carry.removeAll(keepingCapacity: true)
                    }
                    lineStart = i + 1
                }
                i += 1
            }
            if lineStart < n {
                carry.append(contentsOf: bytes[lineStart..<n])
                if carry.count > NMEAFileReader.maxLineLength {
                    try carry.withUnsafeBufferPointer { try decoder.feed(line: $0, body) }
                    carry.removeAll(keepingCapacity: true)
                }
            }
            progress?(decoder.statistics)
        }
        if !carry.isEmpty {
            try carry.withUnsafeBufferPointer { try decoder.feed(line: $0, body) }
        }
        try decoder.finish(body)
        return decoder.statistics
    }
}

/// read(2), under a name that the reader's own `read(_:)` method does not shadow.
private func readChunk(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
