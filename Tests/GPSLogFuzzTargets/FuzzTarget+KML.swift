// SPDX-License-Identifier: MIT
import GPSLogFormats
import GPSLogImportExport

extension FuzzTarget {
    /// A KML file (or a KMZ, when the input starts as a zip does) through `KMLImporter` into a `TrackSpool`, as
    /// `convert` reads one (libxml2's SAX2 push parser, `KMLReader`, ZIPFoundation's inflater, the point sessions).
    /// Every stored point is in range and one the store would take, or the refusal names the file.
    static func kml(_ input: UnsafeRawBufferPointer) {
        let path = FuzzScratch.write(input, as: "input.kml")
        checkSpooled(path: path, reader: "KMLImporter") { spool in
            try KMLImporter(options: TrackImportOptions(routes: true)).importFile(path, into: spool)
        }
    }

    /// A TCX file through `TCXImporter` into a `TrackSpool`, with the same invariants.
    static func tcx(_ input: UnsafeRawBufferPointer) {
        let path = FuzzScratch.write(input, as: "input.tcx")
        checkSpooled(path: path, reader: "TCXImporter") { spool in
            try TCXImporter().importFile(path, into: spool)
        }
    }
}
