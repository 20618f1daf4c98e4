// SPDX-License-Identifier: MIT
import Foundation
import GPSLogGeocoding
import GPSLogTestSupport
import Testing

/// Where `places:world` looks for its index: beside the executable and, when gpslog was started by a symbolic
/// link elsewhere (`~/bin/gpslog` linked to a build), beside the link too.
@Suite(.ownThreads)
struct WorldPlacesLookupTests {
    @Test func theLinkBesideWhichTheIndexSitsIsSearchedAfterItsTarget() throws {
        try withTemporaryDirectory { temporary in
            // The paths come back normalized (the temporary folder's name may hold a `//`).
            let dir = URL(fileURLWithPath: temporary).standardizedFileURL.path
            let target = dir + "/build/release/gpslog"
            let link = dir + "/home/bin/gpslog"
            for folder in [dir + "/build/release", dir + "/home/bin", dir + "/home/share/gpslog"] {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            try Data().write(to: URL(fileURLWithPath: target))
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            let index = dir + "/home/share/gpslog/" + WorldPlaces.fileName
            try Data().write(to: URL(fileURLWithPath: index))

            let paths = WorldPlaces.candidates(environment: [:], executable: target, invoked: link)
            #expect(
                paths == [
                    dir + "/build/share/gpslog/" + WorldPlaces.fileName,
                    dir + "/build/release/" + WorldPlaces.fileName,
                    index,
                    dir + "/home/bin/" + WorldPlaces.fileName,
                ])
            #expect(try WorldPlaces.locate(environment: [:], executable: target, invoked: link) == index)
            // Started by its own path, the link's folder is not searched twice.
            #expect(WorldPlaces.candidates(environment: [:], executable: target, invoked: target).count == 2)
        }
    }

    @Test func theInvokedPathIsArgvZeroOrItsMatchOnPath() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir + "/bin", withIntermediateDirectories: true)
            let program = dir + "/bin/gpslog"
            try Data("#!/bin/sh\n".utf8).write(to: URL(fileURLWithPath: program))
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program)
            #expect(
                WorldPlaces.invokedPath(arguments: ["gpslog"], environment: ["PATH": "/nonexistent:\(dir)/bin"])
                    == program)
            #expect(WorldPlaces.invokedPath(arguments: [program], environment: [:]) == program)
            #expect(WorldPlaces.invokedPath(arguments: ["gpslog"], environment: ["PATH": "/nonexistent"]) == nil)
        }
    }
}
