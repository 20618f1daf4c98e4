// SPDX-License-Identifier: MIT
import Foundation
import GPSLogBundledRecording
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogPipeline
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
