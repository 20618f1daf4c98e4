// SPDX-License-Identifier: MIT
import Foundation
import GPSLogTestSupport
import Testing

/// The systemd units in `dist/`, checked by systemd itself (`systemd-analyze verify` reads unit files offline; it
/// needs no systemd running as PID 1), with `@BINDIR@` pointing at the built binary as `make install` does.
@Suite(.ownThreads)
struct ServiceUnitTests {
    static let analyze = "/usr/bin/systemd-analyze"

    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: analyze), "needs systemd-analyze (Debian: systemd)"))
    func theUnitsPassSystemdAnalyzeVerify() async throws {
        try await withTemporaryDirectory { dir in
            let bindir = URL(fileURLWithPath: TestPaths.gpslogBinary).deletingLastPathComponent().path
            var units: [String] = []
            for name in ["gpslog-record.service", "gpslog-serve.service"] {
                let text = try String(contentsOfFile: TestPaths.packageRoot + "/dist/" + name, encoding: .utf8)
                #expect(text.hasPrefix("# SPDX-License-Identifier: MIT\n"))
                let unit = dir + "/" + name
                try text.replacingOccurrences(of: "@BINDIR@", with: bindir).write(
                    toFile: unit, atomically: true, encoding: .utf8)
                units.append(unit)
            }
            let r = try await run(Self.analyze, ["verify", "--man=no"] + units)
            #expect(r.status == 0 && r.output.isEmpty, "\(r.output)")

            // A unit that systemd would reject is caught: verify is not a formality.
            let broken = dir + "/broken.service"
            try String(contentsOfFile: units[0], encoding: .utf8)
                .replacingOccurrences(of: "ProtectSystem=strict", with: "ProtectSytem=strict")
                .replacingOccurrences(of: bindir + "/gpslog", with: dir + "/missing")
                .write(toFile: broken, atomically: true, encoding: .utf8)
            let refused = try await run(Self.analyze, ["verify", "--man=no", broken])
            #expect(refused.status != 0 && refused.output.contains("Unknown key 'ProtectSytem'"), "\(refused.output)")
        }
    }

    @Test func theRecordUnitRunsTheRecorderAsANotifyServiceWithItsSettings() throws {
        let unit = try String(contentsOfFile: TestPaths.packageRoot + "/dist/gpslog-record.service", encoding: .utf8)
        for line in [
            "Type=notify", "WatchdogSec=30s", "Restart=always", "User=gpslog", "StateDirectory=gpslog",
            "After=gpsd.socket", "EnvironmentFile=-/etc/default/gpslog", "ProtectSystem=strict", "PrivateTmp=yes",
            "NoNewPrivileges=yes", "DeviceAllow=/dev/gps0 rw",
            "ExecStart=@BINDIR@/gpslog record --source ${GPSLOG_SOURCE} --name ${GPSLOG_NAME} $GPSLOG_SPLIT_OPTIONS "
                + "$GPSLOG_RECORD_OPTIONS",
        ] {
            #expect(unit.split(separator: "\n").contains(Substring(line)), "gpslog-record.service lacks \(line)")
        }
        // Every setting the units read is explained in the example /etc/default/gpslog.
        let defaults = try String(contentsOfFile: TestPaths.packageRoot + "/dist/gpslog.default", encoding: .utf8)
        for variable in [
            "GPSLOG_DB", "GPSLOG_SOURCE", "GPSLOG_NAME", "GPSLOG_SPLIT_OPTIONS", "GPSLOG_RECORD_OPTIONS",
            "GPSLOG_LISTEN",
            "GPSLOG_SERVE_OPTIONS", "GPSLOG_TOKEN",
        ] {
            #expect(defaults.contains("#\(variable)="), "gpslog.default lacks \(variable)")
        }
    }

    /// Runs `path arguments`, stdout and stderr together, awaiting its end (see `runGPSLogAsync` for why).
    func run(_ path: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["SYSTEMD_LOG_LEVEL": "notice"]) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        // A few lines at most: they fit in the pipe, so the process never waited for this read.
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        return (status, String(decoding: data, as: UTF8.self))
    }
}
