// SPDX-License-Identifier: MIT
import Foundation
import GPSLogImportExport
import GPSLogModel
import GPSLogPostgres

extension GPSLog.Import {
    /// `import --postgres URL`: the same importers and pipeline as into the SQLite store, ending in PostgreSQL
    /// (`PostgresSessionSink`); each file is one PostgreSQL transaction. The SQLite database is not opened.
    func importIntoPostgres(_ url: String) throws {
        let database = try PostgresDatabase(try postgresLogin.location(url))
        defer { database.close() }
        let sink = try PostgresSessionSink(
            database: database, origin: "import " + ProcessInfo.processInfo.hostName)
        if sample { report(try importSample(into: sink)) }
        for (i, file) in files.enumerated() {
            let (fileImporter, format) = importer(file: file, index: i)
            let results = try withInputFile(file) { path in
                try fileImporter.importFile(path, format: format, into: sink as any SessionSink)
            }
            results.forEach { report($0) }
        }
        try database.analyzeAfterBulkWrite(entries: sink.entriesWritten)
    }
}
