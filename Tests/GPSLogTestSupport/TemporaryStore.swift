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
public func makeEntries(
    count: Int, start: Timestamp = Timestamp(milliseconds: 1_700_000_000_000), step: Double = 10, seed: UInt64 = 1
) -> [Entry] {
    var rng = SplitMix64(seed: seed)
    return (0..<count).map { i in
        let time = start.adding(milliseconds: Int64(i) * 1000)
        return Entry(
            id: Identifier.uuidV7(time: time, using: &rng), latitude: 52 + Double(i) * step / 111_195, longitude: 5,
            altitude: 1, horizontalAccuracy: 3, time: time, speed: step, course: 0, satellites: 9, hdop: 0.8,
            fixMode: .threeD)
    }
}
