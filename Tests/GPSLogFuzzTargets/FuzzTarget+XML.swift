// SPDX-License-Identifier: MIT
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogStore

extension FuzzTarget {
    /// A GPX file through `GPXImporter` into a `TrackSpool`, as `convert` reads one (libxml2's SAX2 push parser,
    /// `GPXReader`, the importer's session builder). Every stored point is in range and one the store would take, or
    /// the refusal names the file.
    static func gpx(_ input: UnsafeRawBufferPointer) {
        let path = FuzzScratch.write(input, as: "input.gpx")
        checkGPX(path: path)
    }

    /// The GPX file at `path` through `GPXImporter` into a `TrackSpool`, checked as `gpx` checks its input.
    ///
    /// - Parameters:
    ///   - path: the GPX file.
    ///   - plausible: also require what the payloads promise (1980 to tomorrow, not 0, 0), which the GPX reader
    ///     checks too: every value stored is one gpslog's own imports read back.
    static func checkGPX(path: String, plausible: Bool = true) {
        checkSpooled(path: path, reader: "GPXImporter", plausible: plausible) { spool in
            try GPXImporter(options: TrackImportOptions(routes: true)).importFile(path, into: spool)
        }
    }

    /// A file through an importer into a `TrackSpool` in the scratch folder: every stored point is in range and one
    /// the store would take, or the refusal names the file.
    static func checkSpooled(
        path: String, reader: String, plausible: Bool = true, _ importFile: (TrackSpool) throws -> [ImportResult]
    ) {
        let spool: TrackSpool
        do {
            spool = try TrackSpool(folder: FuzzScratch.folder)
        } catch {
            fatalError("cannot make a spool: \(error)")
        }
        let results: [ImportResult]
        do {
            results = try importFile(spool)
        } catch {
            FuzzInvariant.refusal(error, from: reader, naming: path)
            return
        }
        do {
            for result in results {
                FuzzInvariant.checkVisible(result.session.name.visible, what: "a session name")
                var seen = 0
                try spool.forEachEntry(of: result.session.id, from: nil, to: nil) { entry in
                    seen += 1
                    FuzzInvariant.accepted(entry, from: reader, plausibleTime: plausible, plausiblePosition: plausible)
                }
                FuzzInvariant.check(
                    seen == result.entries, "\(reader) said \(result.entries) entries, spool has \(seen)")
            }
        } catch {
            fatalError("cannot read back the spool: \(error)")
        }
    }

    /// gpslog's session XML through `SessionXMLImporter` into a store in the scratch folder (`xmlTextReader`, the
    /// importer, the store's bulk write). Every imported entry is in range, or the refusal names the file.
    static func sessionXML(_ input: UnsafeRawBufferPointer) {
        let path = FuzzScratch.write(input, as: "input.xml")
        checkSessionXML(path: path)
    }

    static func checkSessionXML(path: String) {
        let store = FuzzScratch.store
        let results: [ImportResult]
        do {
            results = try SessionXMLImporter().importFile(path, into: store)
        } catch {
            FuzzInvariant.refusal(error, from: "SessionXMLImporter", naming: path)
            return
        }
        checkImported(results, in: store, from: "SessionXMLImporter", plausible: false)
    }

    /// Reads back what an importer stored, checks every entry, and deletes the sessions (the store is reused).
    static func checkImported(_ results: [ImportResult], in store: Store, from reader: String, plausible: Bool) {
        do {
            for result in results {
                var seen = 0
                try store.entries(of: result.session.id).forEach { entry in
                    seen += 1
                    FuzzInvariant.accepted(entry, from: reader, plausibleTime: plausible, plausiblePosition: plausible)
                }
                FuzzInvariant.check(seen == result.entries, "\(reader) said \(result.entries) entries, stored \(seen)")
                _ = try store.deleteSession(id: result.session.id)
            }
        } catch {
            fatalError("cannot read back or delete an imported session: \(error)")
        }
    }

    /// Any file as `import` meets it: `ImportFormat.detect` by content, then the reader of the format it names.
    static func detect(_ input: UnsafeRawBufferPointer) {
        let path = FuzzScratch.write(input, as: "input")
        let format: ImportFormat
        do {
            format = try ImportFormat.detect(path: path)
        } catch {
            FuzzInvariant.refusal(error, from: "ImportFormat.detect", naming: path)
            return
        }
        switch format {
        case .nmea: checkNMEA(path: path)
        case .gpx: checkGPX(path: path)
        case .xml: checkSessionXML(path: path)
        case .overland: checkOverland(Array(input), source: path)
        case .owntracks: checkRec(path: path)
        case .geojson, .csv, .kml, .kmz, .tcx: checkTrackFile(path: path, format: format)
        case .gpslogdb: break  // an SQLite file: not a parser of ours
        case .google: checkGoogle(path: path)
        }
    }

    /// GeoJSON, CSV, KML or TCX through its importer into a store in the scratch folder (the streaming JSON, CSV or
    /// SAX reader, the point and line sessions): every entry in range and plausible, or the refusal names the file.
    static func checkTrackFile(path: String, format: ImportFormat) {
        let store = FuzzScratch.store
        let results: [ImportResult]
        do {
            results = try FileImporter().importFile(path, format: format, into: store)
        } catch {
            FuzzInvariant.refusal(error, from: "\(format.rawValue) import", naming: path)
            return
        }
        checkImported(results, in: store, from: "\(format.rawValue) import", plausible: true)
    }
}
