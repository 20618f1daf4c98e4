// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogModel
import GPSLogXML

/// What every file importer that reads with a parser of ours does around it (GPX, session XML, GeoJSON, CSV): check
/// the file, run in one transaction sized by the file, and turn libxml2's errors into import errors naming the file
/// and line (the JSON and CSV readers throw `ImportError`s of their own).
enum FileImport {
    static func run(_ path: String, store: any SessionSink, _ parse: () throws -> [ImportResult]) throws
        -> [ImportResult]
    {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ImportError.unreadable(file: path, reason: "no such readable file")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
        return try store.importTransaction(expectedBytes: size) {
            do {
                return try parse()
            } catch let error as XMLError {
                throw ImportError.malformed(file: path, line: error.line, reason: error.message)
            }
        }
    }
}
