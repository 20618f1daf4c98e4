// SPDX-License-Identifier: MIT

extension NMEADecoder {
    /// Decodes NMEA text held in memory (the bundled sample), line by line, then flushes the last epoch.
    public mutating func decode(text: String, _ emit: (SourceEvent) throws -> Void) rethrows {
        var bytes = Array(text.utf8)
        try bytes.withUnsafeMutableBufferPointer { buffer in
            var start = 0
            for i in 0...buffer.count where i == buffer.count || buffer[i] == 10 || buffer[i] == 13 {
                if i > start { try feed(line: UnsafeBufferPointer(rebasing: buffer[start..<i]), emit) }
                start = i + 1
            }
        }
        try finish(emit)
    }
}
