// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSQLite
import GPSLogTestSupport
import Testing

@testable import GPSLogStore

@Suite(.ownThreads)
struct MigrationTests {
    @Test func scriptsAreNumberedFromTheSchemaFolder() throws {
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: TestPaths.packageRoot + "/Schema")
            .filter { $0.hasSuffix(".sql") }.sorted()
        #expect(Migrations.all.map(\.fileName) == onDisk)
        // Numbered from the file names, 1...n, each once.
        #expect(Migrations.all.map(\.version) == onDisk.map { Int($0.prefix(3))! })
        #expect(Migrations.all.map(\.version) == Array(1...onDisk.count))
        #expect(Set(Migrations.all.map(\.version)).count == onDisk.count)
        // The embedded text is the file, byte for byte.
        for script in Migrations.all {
            #expect(
                script.sql
                    == (try String(
                        contentsOfFile: TestPaths.packageRoot + "/Schema/" + script.fileName, encoding: .utf8)))
        }
    }

    @Test func anEmptyFileMigratesToTheLatestVersion() throws {
        try withTemporaryStore { store, path in
            #expect(try store.database.userVersion() == Migrations.latestVersion)
            let tables = try store.database.makeStatement(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            var names: [String] = []
            while try tables.step() { names.append(tables.string(at: 0)!) }
            #expect(
                names == [
                    "DayCells", "DaySummaries", "Devices", "EntryDays", "EntryRows", "GeocodeCache", "GeocodeProviders",
                    "HistorySpans", "HistoryStale", "HistoryTiles", "ReceivedDevices", "ReceivedWaypoints",
                    "Regions", "SentRecords", "ServerSettings", "SessionShares", "SessionSummaries", "Sessions",
                    "TrackingEvents", "Transitions", "Uploads", "Users", "ViewLogins", "Visits",
                ])
            #expect(try store.database.scalar("PRAGMA journal_mode")?.string == "wal")
            #expect(try store.database.scalar("PRAGMA foreign_keys")?.int64 == 1)
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }

    /// For every earlier version: a database left at that version, holding data, upgrades to the latest and keeps
    /// its data.
    @Test(arguments: [0] + Migrations.all.dropLast().map(\.version))
    func upgradesFromEveryEarlierVersion(version: Int) throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/old.sqlite"
            do {
                let db = try Database(path: path)
                defer { db.close() }
                try Migrations.migrate(db, upTo: version)
                #expect(try db.userVersion() == version)
                if version >= 1 {
                    try db.execute(
                        """
                        INSERT INTO Sessions (ID, StartTime, EndTime, Name)
                        VALUES ('00000000-0000-4000-8000-000000000001', 1000, 5000, 'Old ride');
                        INSERT INTO Entries (Session, Latitude, Longitude, TimeStamp, EntryID, InstanceCount)
                        VALUES ('00000000-0000-4000-8000-000000000001', 52.5, 5.25, 2000, '00000000-0000-7000-8000-000000000002', 3);
                        """)
                }
            }
            let store = try Store(path: path)
            defer { store.close() }
            #expect(try store.database.userVersion() == Migrations.latestVersion)
            if version >= 1 {
                let session = try store.resolveSession("Old ride")
                #expect(session.end?.milliseconds == 5000)
                let entry = try store.entries(of: session.id).next()
                #expect(entry?.latitude == 52.5 && entry?.instanceCount == 3)
                #expect(entry?.label == nil && entry?.satellites == nil && entry?.batteryState == nil)
            }
            // Columns of every migration exist now.
            try store.database.execute(
                "SELECT Label, Satellites, HDOP, FixMode, Motion, BatteryLevel, DeviceID, Wifi FROM Entries")
            try store.database.execute("SELECT Mode FROM Sessions")
            try store.database.execute("SELECT Outline FROM Regions")
        }
    }

    @Test func aNewerDatabaseIsRefusedClearly() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/new.sqlite"
            do {
                let db = try Database(path: path)
                try db.setUserVersion(Migrations.latestVersion + 1)
                db.close()
            }
            let error = #expect(throws: StoreError.self) { _ = try Store(path: path) }
            #expect(
                error
                    == .schemaTooNew(
                        path: path, found: Migrations.latestVersion + 1, supported: Migrations.latestVersion))
            #expect(error?.errorDescription?.contains("upgrade gpslog") == true)
        }
    }

    @Test func unopenablePathsNameThePathAndTheReason() throws {
        let underFile = #expect(throws: StoreError.self) { _ = try Store(path: "/etc/hostname/gpslog.sqlite") }
        #expect(underFile?.errorDescription?.hasPrefix("cannot open the database /etc/hostname/gpslog.sqlite:") == true)
        try withTemporaryDirectory { dir in
            let garbage = dir + "/notes.txt"
            try "these are not the tables you are looking for".write(toFile: garbage, atomically: true, encoding: .utf8)
            let error = #expect(throws: StoreError.self) { _ = try Store(path: garbage) }
            #expect(error == .cannotOpen(path: garbage, reason: "file is not a database"))
            let folder = #expect(throws: StoreError.self) { _ = try Store(path: dir) }
            #expect(folder == .cannotOpen(path: dir, reason: "it is a directory"))
        }
    }

    @Test func theDatabaseLocationFollowsFlagThenEnvironmentThenXDG() {
        #expect(DatabaseLocation.resolve(explicit: "/a.sqlite", environment: ["GPSLOG_DB": "/b.sqlite"]) == "/a.sqlite")
        #expect(
            DatabaseLocation.resolve(explicit: nil, environment: ["GPSLOG_DB": "/b.sqlite", "XDG_DATA_HOME": "/x"])
                == "/b.sqlite")
        #expect(
            DatabaseLocation.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"])
                == "/x/gpslog/gpslog.sqlite")
        #expect(
            DatabaseLocation.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "relative", "HOME": "/h"])
                == "/h/.local/share/gpslog/gpslog.sqlite")
        #expect(DatabaseLocation.resolve(explicit: "~/g.sqlite", environment: ["HOME": "/h"]) == "/h/g.sqlite")
    }
}
