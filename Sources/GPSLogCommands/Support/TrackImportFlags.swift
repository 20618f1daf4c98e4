// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogInterchange
import GPSLogModel

/// How `import` and `convert` make sessions of a file's tracks.
struct TrackImportFlags: ParsableArguments {
    @Flag(
        help: """
            One session per file: a GPX file's tracks (a GeoJSON's or KML's lines, a CSV's sessions, a TCX's \
            activities) become segments of one session, instead of a session each.
            """)
    var merge = false
    @Flag(
        help: """
            Import GPX routes (rte, and GPSBabel's KML Routes), each as a session of its points, which have no time \
            (they are dated as untimed track points are); without it routes are reported and skipped.
            """)
    var routes = false

    /// The options for `file`: notes about it go to stderr, one line each, after the file's name.
    func options(name: String?, file: String) -> TrackImportOptions {
        var options = TrackImportOptions(name: name, merge: merge, routes: routes)
        options.notes = { text in
            FileHandle.standardError.write(Data("\(file): note: \(text.visible)\n".utf8))
        }
        return options
    }
}
