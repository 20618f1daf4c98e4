// SPDX-License-Identifier: MIT
import GPSLogImportExport
import GPSLogModel

/// `import --dry-run`: what each file would import, per session, and nothing written. A file that would be
/// refused is refused the same way (with its line), and the command fails as the import would.
struct DryRun {
    let files: [String]
    let importer: (String, Int) -> (FileImporter, ImportFormat?)

    func run() throws {
        for (i, file) in files.enumerated() {
            let (fileImporter, format) = importer(file, i)
            let planned = try withInputFile(file) { try fileImporter.dryRun($0, format: format) }
            let points = planned.map(\.points).reduce(0, +)
            let marks = planned.map(\.marks).reduce(0, +)
            let visits = planned.map(\.visits).reduce(0, +)
            let sessions = planned.count == 1 ? "1 session" : "\(planned.count) sessions"
            print(
                "\(displayName(ofInput: file)): would import \(sessions), \(counted(points, "point")), \(counted(marks, "mark"))"
                    + (visits > 0 ? ", \(counted(visits, "visit"))" : ""))
            for p in planned {
                var line = "  '\(p.name.visible)': \(counted(p.points, "point")), \(counted(p.marks, "mark"))"
                if p.headings > 0 { line += ", \(p.headings) heading changes" }
                if p.visits > 0 { line += ", \(counted(p.visits, "visit"))" }
                line += ", from \(p.start.iso8601())"
                if let end = p.end { line += " to \(end.iso8601())" }
                print(line)
            }
        }
        print("Nothing was written (--dry-run).")
    }
}
