// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogInterchange
import GPSLogModel
import GPSLogSample
import GPSLogStore
import GPSLogTestSupport

/// The session the golden exports in `Exports/` are made from: the bundled sample (fixed ids) as a boat trip, plus
/// one mark whose label and address need escaping in every format.
enum ExportFixtures {
    static let markLabel = "Buoy <7> & \"Kaap\" 🚤"
    static let markAddress = "IJsselmeer, Nederland"

    static func makeSampleSession(in store: Store) throws -> Session {
        let result = try NMEAImporter().importText(
            Sample.nmea, file: Sample.fileName, name: Sample.sessionName, mode: .boat, sessionID: Sample.sessionID,
            into: store)
        let mark = Entry(
            id: "016556bc-6d60-7000-8000-00000000b007", latitude: 52.8492133, longitude: 5.311535, altitude: -4,
            horizontalAccuracy: 11.4, time: Timestamp(iso8601: "2018-08-20T09:48:30Z")!, address: markAddress,
            marked: true, label: markLabel)
        try store.append([mark], to: result.session.id)
        return try store.session(id: result.session.id)!
    }

    /// The golden file name of each format in `Exports/`.
    static func goldenName(_ format: ExportFormat) -> String {
        switch format {
        case .overland: "sample.overland.json"
        case .owntracks: "sample.owntracks.jsonl"
        default: "sample.\(format.fileExtension)"
        }
    }

    /// Exports the sample session in `format` into `dir`; returns the file's path.
    static func export(_ format: ExportFormat, store: Store, session: Session, dir: String, simplify: Double? = nil)
        throws -> String
    {
        let path = dir + "/" + goldenName(format)
        try Exporter(format: format).export(
            [try SessionExport(store: store, session: session, simplify: simplify)], to: path)
        return path
    }
}

/// Runs a command-line tool (gpsbabel, ogrinfo) and returns its stdout.
func runTool(_ path: String, _ arguments: [String]) throws -> (output: String, status: Int32) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = arguments
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle(forWritingAtPath: "/dev/null")
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (String(decoding: data, as: UTF8.self), p.terminationStatus)
}
