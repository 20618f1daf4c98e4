// SPDX-License-Identifier: MIT
import Foundation

/// Runs a command-line tool (gpsbabel, ogrinfo, chromium, curl) and returns its stdout and status (stderr is
/// dropped).
public func runTool(_ path: String, _ arguments: [String]) throws -> (output: String, status: Int32) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = arguments
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle(forWritingAtPath: "/dev/null")
    try p.runClosingFiles()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (String(decoding: data, as: UTF8.self), p.terminationStatus)
}
