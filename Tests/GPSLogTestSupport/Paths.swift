// SPDX-License-Identifier: MIT
import Foundation

/// Where things are, found from this source file's location so tests run from any working directory.
public enum TestPaths {
    /// The package root (the folder holding Package.swift).
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url.path
            }
            url.deleteLastPathComponent()
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// `../shared/data` beside the checkout (real recordings and files written by other tools), or
    /// `$GPSLOG_SHARED_DATA`.
    public static var sharedData: String {
        if let env = ProcessInfo.processInfo.environment["GPSLOG_SHARED_DATA"], !env.isEmpty { return env }
        return URL(fileURLWithPath: packageRoot).deletingLastPathComponent().appendingPathComponent("shared/data").path
    }

    /// True when the shared data folder is present (tests that need it are skipped otherwise).
    public static var hasSharedData: Bool {
        FileManager.default.fileExists(atPath: sharedData + "/nmea")
    }

    /// The built `gpslog` executable next to the test bundle (swift build puts products and tests together).
    public static var gpslogBinary: String {
        if let env = ProcessInfo.processInfo.environment["GPSLOG_BINARY"], !env.isEmpty { return env }
        var url = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = url.appendingPathComponent("gpslog")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            url.deleteLastPathComponent()
        }
        // `swift test` runs the xctest bundle from .build/<triple>/debug.
        return URL(fileURLWithPath: packageRoot).appendingPathComponent(".build/debug/gpslog").path
    }
}
