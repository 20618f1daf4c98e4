// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore

/// Opens a real store file in a fresh temporary folder and removes both afterwards.
public func withTemporaryStore<T>(_ body: (Store, String) throws -> T) throws -> T {
    try withTemporaryDirectory { dir in
        let path = dir + "/gpslog.sqlite"
        let store = try Store(path: path)
        defer { store.close() }
        return try body(store, path)
    }
}

/// Test entries along a line north from 52°N 5°E, one a second, `step` metres apart.
public func makeEntries(count: Int, start: Timestamp = Timestamp(milliseconds: 1_700_000_000_000), step: Double = 10, seed: UInt64 = 1) -> [Entry] {
    var rng = SplitMix64(seed: seed)
    return (0..<count).map { i in
        let time = start.adding(milliseconds: Int64(i) * 1000)
        return Entry(
            id: Identifier.uuidV7(time: time, using: &rng), latitude: 52 + Double(i) * step / 111_195, longitude: 5,
            altitude: 1, horizontalAccuracy: 3, time: time, speed: step, course: 0, satellites: 9, hdop: 0.8, fixMode: .threeD)
    }
}

/// Resident set size of this process in bytes (`VmRSS`), and the peak since the last reset (`VmHWM`).
public enum ProcessMemory {
    public static func current() -> Int { read("VmRSS:") }
    public static func peak() -> Int { read("VmHWM:") }

    /// Resets the peak (VmHWM) to the current size: writing 5 to /proc/self/clear_refs (Linux 4.0+).
    public static func resetPeak() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    private static func read(_ key: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            let kb = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
            return kb * 1024
        }
        return 0
    }
}
