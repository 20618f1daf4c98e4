// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// Mounting file systems takes root (CI and `make test` run as root here); elsewhere the suite says why it is off.
private let canMount = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/mount")

/// A database on a card or a backup disk mounted read-only: `sessions`, `show` and `export` read it (SQLite can
/// neither lock it nor create its `-shm` there), and what cannot be read is refused in words that say what to do.
@Suite(.ownThreads, .enabled(if: canMount, "needs root to mount a tmpfs"))
struct ReadOnlyMediumTests {
    static func mount(_ arguments: [String]) throws {
        let run = try runTool("/usr/bin/mount", arguments)
        try #require(run.status == 0, "mount \(arguments): \(run.output)")
    }

    @Test func aDatabaseOnAReadOnlyMountIsReadAndNeverWritten() throws {
        try withTemporaryDirectory { dir in
            let mountPoint = dir + "/card"
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
            try Self.mount(["-t", "tmpfs", "-o", "size=16m", "tmpfs", mountPoint])
            defer { _ = try? runTool("/usr/bin/umount", ["-l", mountPoint]) }
            let db = mountPoint + "/gpslog.sqlite"
            #expect(try runGPSLog(["import", "--sample", "--name", "Sail"], database: db).status == 0)
            // A copy whose last commit is still in its WAL, as a card pulled while a recorder ran leaves it.
            let copy = try runTool(
                "/usr/bin/python3",
                [
                    "-c",
                    """
                    import sqlite3, shutil
                    c = sqlite3.connect('\(db)'); c.execute('PRAGMA wal_autocheckpoint = 0')
                    c.execute("UPDATE Sessions SET Name = 'Renamed'"); c.commit()
                    shutil.copy('\(db)', '\(mountPoint)/pulled.sqlite'); shutil.copy('\(db)-wal', '\(mountPoint)/pulled.sqlite-wal')
                    c.execute("UPDATE Sessions SET Name = 'Sail'"); c.commit(); c.close()
                    """,
                ])
            #expect(copy.status == 0, "\(copy.output)")
            try Self.mount(["-o", "remount,ro", mountPoint])
            let before = try FileManager.default.contentsOfDirectory(atPath: mountPoint).sorted()

            let sessions = try runGPSLog(["sessions"], database: db)
            #expect(sessions.status == 0, "\(sessions.stderr)")
            #expect(sessions.stdout.contains("Sail"))
            let show = try runGPSLog(["show", "Sail"], database: db)
            #expect(show.status == 0 && show.stdout.contains("Sail"), "\(show.stderr)")
            let gpx = dir + "/sail.gpx"
            let export = try runGPSLog(["export", "Sail", "--format", "gpx", "--output", gpx], database: db)
            #expect(export.status == 0, "\(export.stderr)")
            #expect((try? String(contentsOfFile: gpx, encoding: .utf8))?.contains("<trkpt") == true)
            // A write says why it cannot be done.
            let rename = try runGPSLog(["rename", "Sail", "Other"], database: db)
            #expect(rename.status == 1 && rename.stderr.contains("readonly"), "\(rename.stderr)")

            let pulled = try runGPSLog(["sessions"], database: mountPoint + "/pulled.sqlite")
            #expect(pulled.status == 1)
            #expect(
                pulled.stderr.contains("read-only file system") && pulled.stderr.contains("-wal"), "\(pulled.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint).sorted() == before)
        }
    }
}
