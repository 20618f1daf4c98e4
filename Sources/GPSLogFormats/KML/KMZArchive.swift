// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import ZIPFoundation

/// A KMZ: a zip archive whose document is its `doc.kml`, else its first `.kml` (in the archive's order), inflated
/// piece by piece as it is parsed (ZIPFoundation over zlib), so nothing but the parser's buffer is in memory.
///
/// A zip bomb is refused before anything is read: a document that says it inflates past `Limits.maxBytes`, or more
/// than `Limits.maxRatio` times its stored size once past `Limits.ratioFloor`. Real KML compresses 3 to 30 times
/// (GPSBabel's, GDAL's and gpslog's of the GPX files in `../shared/data`); a bomb a thousand. As the header may lie,
/// the bytes are counted as they inflate too, and the checksum is checked at the end.
struct KMZArchive {
    struct Limits {
        var maxBytes: UInt64 = 4 << 30
        var maxRatio: UInt64 = 100
        var ratioFloor: UInt64 = 10 << 20
        /// At most this many entries are looked through for the document: every entry of a zip that is not ZIP64
        /// (whose count is 16 bits), so a `doc.kml` after 10,000 pictures is found; a ZIP64 archive of millions of
        /// entries is not walked through whole.
        var maxEntries = 65_535
    }

    let path: String
    /// The file and the document in it, as errors name them: `trip.kmz (doc.kml)`.
    let displayName: String
    private let archive: Archive
    private let entry: ZIPFoundation.Entry

    /// True when the file starts as a zip archive does (`PK\3\4`).
    static func isZip(_ path: String) throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ImportError.unreadable(file: path, reason: String(cString: strerror(errno)))
        }
        defer { try? handle.close() }
        return handle.readData(ofLength: 4) == Data([0x50, 0x4B, 0x03, 0x04])
    }

    /// Opens the archive and finds its document.
    /// - Throws: `ImportError` when it is not a readable zip, holds no `.kml`, or its document would inflate past
    ///   `limits`.
    init(path: String, limits: Limits = Limits()) throws {
        self.path = path
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw ImportError.malformed(
                file: path, line: 0, reason: "not a zip archive that can be read (\(error)); a KMZ is a zip of KML")
        }
        var first: ZIPFoundation.Entry?
        var found: ZIPFoundation.Entry?
        var more = false
        for (i, e) in archive.enumerated() {
            guard i < limits.maxEntries else {
                more = true
                break
            }
            guard e.type == .file, e.path.lowercased().hasSuffix(".kml") else { continue }
            if e.path.lowercased() == "doc.kml" {
                found = e
                break
            }
            if first == nil { first = e }
        }
        // Past the limit without a doc.kml, the first .kml is the document (KMZ's own rule); without any, the
        // refusal says that the archive was not looked through whole rather than that it holds no KML.
        guard let entry = found ?? first else {
            if more {
                throw ImportError.unsupportedFormat(
                    file: path,
                    detail: "no .kml document among the first \(limits.maxEntries) entries of the zip archive, and "
                        + "it has more (a KMZ's document, doc.kml, comes first): not looked through further")
            }
            throw ImportError.unsupportedFormat(file: path, detail: "a zip archive without a .kml document (not a KMZ)")
        }
        self.entry = entry
        displayName = "\(path) (\(entry.path.visible))"
        let inflated = entry.uncompressedSize
        let stored = max(entry.compressedSize, 1)
        if inflated > limits.maxBytes {
            throw ImportError.malformed(
                file: displayName, line: 0,
                reason:
                    "would inflate to \(inflated) bytes, over the \(Self.size(limits.maxBytes)) a KMZ's document may have"
            )
        }
        if inflated > limits.ratioFloor && inflated / stored > limits.maxRatio {
            throw ImportError.malformed(
                file: displayName, line: 0,
                reason:
                    "would inflate \(inflated / stored) times (\(entry.compressedSize) bytes to \(inflated)): a zip bomb, not KML (which compresses at most about 30 times)"
            )
        }
    }

    /// A limit in words: `4 GiB`, or bytes below 1 GiB.
    private static func size(_ bytes: UInt64) -> String {
        bytes >= 1 << 30 && bytes % (1 << 30) == 0 ? "\(bytes >> 30) GiB" : "\(bytes) bytes"
    }

    /// Inflates the document, handing each piece to `feed` in order.
    /// - Throws: `ImportError` when it inflates past its declared size, is damaged (zlib's error, a checksum that
    ///   does not match); or what `feed` threw.
    func inflate(_ feed: (UnsafeRawBufferPointer) throws -> Void) throws {
        let declared = entry.uncompressedSize
        var total: UInt64 = 0
        var fed: Error?
        let checksum: CRC32
        do {
            checksum = try archive.extract(entry, bufferSize: 1 << 18, skipCRC32: false) { data in
                total += UInt64(data.count)
                guard total <= declared else {
                    throw ImportError.malformed(
                        file: displayName, line: 0,
                        reason: "inflates past the \(declared) bytes its header declares (a zip bomb?)")
                }
                do {
                    try data.withUnsafeBytes { try feed($0) }
                } catch {
                    fed = error
                    throw error
                }
            }
        } catch let error as ImportError {
            throw error
        } catch {
            if let fed { throw fed }
            throw ImportError.malformed(file: displayName, line: 0, reason: "cannot inflate it (\(error))")
        }
        guard checksum == entry.checksum, total == declared else {
            throw ImportError.malformed(
                file: displayName, line: 0, reason: "damaged: its checksum or size is not the one its header declares")
        }
    }
}
