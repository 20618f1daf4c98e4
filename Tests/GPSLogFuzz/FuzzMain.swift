// SPDX-License-Identifier: MIT
import CLibFuzzer
import Foundation
import GPSLogFuzzTargets

/// `gpslog-fuzz`: libFuzzer's driver over the target named by `GPSLOG_FUZZ_TARGET`; the arguments are libFuzzer's
/// (corpus folders, `-max_total_time=`, ...). `.ci/fuzz` runs it.
///
/// The `main` is ours, not libFuzzer's: SwiftPM links an executable with its module's entry point as `main`, which
/// would hide libFuzzer's, so this one hands the command line to `LLVMFuzzerRunDriver`.
@main
enum FuzzMain {
    /// The target, set once before the driver starts.
    nonisolated(unsafe) static var target = FuzzTarget.nmea

    static func main() {
        let environment = ProcessInfo.processInfo.environment
        guard let chosen = FuzzTarget(rawValue: environment["GPSLOG_FUZZ_TARGET"] ?? "") else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: " ")
            FileHandle.standardError.write(Data("gpslog-fuzz: set GPSLOG_FUZZ_TARGET to one of: \(names)\n".utf8))
            exit(2)
        }
        // With GPSLOG_FUZZ_SEEDS=PACKAGE_ROOT: the target's max_len and seed files, one a line (how .ci/fuzz fills a
        // corpus).
        if let root = environment["GPSLOG_FUZZ_SEEDS"] {
            print("max_len=\(chosen.maxLength)")
            for path in chosen.seedFiles(packageRoot: root, sharedData: environment["GPSLOG_SHARED_DATA"]) {
                print(path)
            }
            exit(0)
        }
        target = chosen
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzerTestOneInput))
    }
}

/// One input. Also exported under libFuzzer's name: its archive's own `main`, which the linker may pull in too,
/// refers to it.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzMain.target.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
