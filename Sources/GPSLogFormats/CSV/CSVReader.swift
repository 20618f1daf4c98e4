// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSystem

/// A streaming CSV reader (RFC 4180, and what spreadsheets write): records one at a time from a file read in 256 KiB
/// chunks, fields separated by `,`, `;` or a tab (the one the header uses most), quoted with `"` (doubled inside),
/// line breaks inside quotes, CR LF or LF, a UTF-8 byte order mark, blank lines skipped. A record's fields are byte
/// ranges into `record`, valid until the next one. A record longer than 1 MiB (counted in the file's bytes, separators
/// and quotes included) or of more than 4,096 fields, a quote left open at the end of the file, or a character after
/// a closing quote is refused with the line. The limits are checked as the bytes arrive, so a line of 100 MB of
/// commas costs no more memory than a short one.
public struct CSVReader {
    /// The file (for messages).
    public let file: String
    /// The separator, told from the header.
    public private(set) var delimiter: UInt8 = UInt8(ascii: ",")
    /// The line the last record starts on (1-based).
    public private(set) var line = 0
    /// The last record's bytes, unquoted, and its fields.
    public private(set) var record: [UInt8] = []
    /// The last record's fields, as byte ranges into `record`.
    public private(set) var fields: [Range<Int>] = []

    private let input: InputFile
    private var buffer: [UInt8]
    private var position = 0
    private var filled = 0
    private var atEOF = false
    private var nextLine = 1
    private var started = false
    private static let maxRecord = 1 << 20
    /// The most fields a record may have (a spreadsheet's 16,384 columns would be refused; real files have dozens).
    static let maxFields = 4096
    /// The file's bytes of the record being read.
    private var recordBytes = 0

    /// Opens `file` for reading; throws `ImportError.unreadable`, naming it, when it cannot.
    public init(file: String) throws {
        self.file = file
        input = try InputFile(file)
        buffer = [UInt8](repeating: 0, count: 1 << 18)
        record.reserveCapacity(1024)
        fields.reserveCapacity(32)
    }

    /// Closes the file.
    public func close() { input.close() }

    /// The text of field `i` of the last record ("" when the record is shorter).
    public func text(_ i: Int) -> String {
        guard i < fields.count else { return "" }
        return String(decoding: record[fields[i]], as: UTF8.self)
    }

    /// The bytes of field `i`, without surrounding white space (empty when the record is shorter).
    public func bytes(_ i: Int) -> ArraySlice<UInt8> {
        guard i < fields.count else { return [] }
        return ByteNumber.trimmed(record[fields[i]])
    }

    /// Reads the next record; false after the last. The first call tells the delimiter from the header.
    public mutating func next() throws -> Bool {
        if !started {
            started = true
            if try fill(), filled >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { position = 3 }
            if filled >= 2, buffer[0] == 0xFF && buffer[1] == 0xFE || buffer[0] == 0xFE && buffer[1] == 0xFF {
                throw ImportError.unsupportedFormat(file: file, detail: InputFile.utf16Refusal)
            }
            delimiter = detectDelimiter()
        }
        while true {
            record.removeAll(keepingCapacity: true)
            fields.removeAll(keepingCapacity: true)
            line = nextLine
            guard try peek() != nil else { return false }
            try readRecord()
            // A blank line is no record.
            if fields.count == 1 && fields[0].isEmpty { continue }
            return true
        }
    }

    /// The separator the first line uses most (outside quotes): `,`, `;` or tab; `,` when none.
    private func detectDelimiter() -> UInt8 {
        var counts: [UInt8: Int] = [UInt8(ascii: ","): 0, UInt8(ascii: ";"): 0, 9: 0]
        var quoted = false
        var i = position
        while i < filled, buffer[i] != 10 || quoted {
            let c = buffer[i]
            if c == UInt8(ascii: "\"") { quoted.toggle() }
            if !quoted, counts[c] != nil { counts[c]! += 1 }
            i += 1
        }
        let best = counts.max { a, b in a.value < b.value || (a.value == b.value && a.key != UInt8(ascii: ",")) }!
        return best.value > 0 ? best.key : UInt8(ascii: ",")
    }

    private mutating func readRecord() throws {
        recordBytes = 0
        var start = 0
        var quoted = false
        var afterQuote = false
        while true {
            guard let c = try peek() else {
                if quoted {
                    throw ImportError.malformed(
                        file: file, line: line, reason: "a quoted field is not closed (truncated?)")
                }
                break
            }
            if !quoted && !afterQuote && c != delimiter && c != 10 && c != 13 && c != UInt8(ascii: "\"") {
                // The common case: a run of plain bytes, copied at once.
                let begin = position
                let d = delimiter
                while position < filled {
                    let b = buffer[position]
                    if b == d || b == 10 || b == 13 || b == UInt8(ascii: "\"") { break }
                    position += 1
                }
                recordBytes += position - begin
                guard recordBytes <= Self.maxRecord else { throw tooLong() }
                record.append(contentsOf: buffer[begin..<position])
                continue
            }
            position += 1
            recordBytes += 1
            guard recordBytes <= Self.maxRecord else { throw tooLong() }
            if quoted {
                if c == UInt8(ascii: "\"") {
                    if try peek() == UInt8(ascii: "\"") {
                        position += 1
                        recordBytes += 1
                        try keep(c)
                    } else {
                        quoted = false
                        afterQuote = true
                    }
                } else {
                    if c == 10 { nextLine += 1 }
                    try keep(c)
                }
                continue
            }
            if c == delimiter {
                guard fields.count < Self.maxFields - 1 else {
                    throw ImportError.malformed(
                        file: file, line: line, reason: "more than \(Self.maxFields) fields in a record")
                }
                fields.append(start..<record.count)
                start = record.count
                afterQuote = false
            } else if c == 10 {
                nextLine += 1
                break
            } else if c == 13 {
                continue
            } else if c == UInt8(ascii: "\"") && record.count == start && !afterQuote {
                quoted = true
            } else if afterQuote {
                if c == 0x20 || c == 9 { continue }
                throw ImportError.malformed(
                    file: file, line: line, reason: "field \(fields.count + 1): a character after a closing quote")
            } else {
                try keep(c)
            }
        }
        fields.append(start..<record.count)
    }

    @inline(__always) private mutating func keep(_ c: UInt8) throws {
        guard record.count < Self.maxRecord else { throw tooLong() }
        record.append(c)
    }

    private func tooLong() -> ImportError {
        ImportError.malformed(file: file, line: line, reason: "a record longer than 1 MiB")
    }

    @inline(__always) private mutating func peek() throws -> UInt8? {
        if position < filled { return buffer[position] }
        return try fill() ? buffer[position] : nil
    }

    /// Reads the next chunk; false at the end of the file.
    private mutating func fill() throws -> Bool {
        guard !atEOF else { return false }
        let n = try input.read(into: &buffer)
        position = 0
        filled = n
        if n == 0 { atEOF = true }
        return n > 0
    }
}
