// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogImportExport
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
    @Option(
        help: ArgumentHelp(
            """
            Google location history: one session per local day (in --timezone, else TZ or this machine's zone), \
            named "NAME YYYY-MM-DD", instead of one per file.
            """, valueName: "day"))
    var splitBy: SplitBy?

    /// What `--split-by` splits a file by.
    enum SplitBy: String, ExpressibleByArgument {
        case day
    }

    /// The options for `file`: notes about it go to stderr, one line each, after the file's name. Days are
    /// `timeZone`'s.
    func options(name: String?, file: String, timeZone: TimeZone = .current) -> TrackImportOptions {
        var options = TrackImportOptions(name: name, merge: merge, routes: routes)
        if splitBy == .day { options.splitByDay = timeZone }
        options.notes = { text in
            FileHandle.standardError.write(Data("\(file): note: \(text.visible)\n".utf8))
        }
        return options
    }
}
