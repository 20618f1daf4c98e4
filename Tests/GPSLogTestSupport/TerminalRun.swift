// SPDX-License-Identifier: MIT
import Foundation

/// Runs the built `gpslog` with a pseudo-terminal as its standard input, output and error (as a user's shell would)
/// and returns all it wrote there and its exit status.
///
/// Why not `script -c`: util-linux's script stops copying the child's output when its own standard input ends, so
/// on a loaded machine, where the child writes late, it handed back an empty output. Python's `pty.fork` (Swift's
/// Glibc module does not import posix_openpt) gives the terminal; the parent reads its master side until the kernel
/// reports the child's side closed (EIO), then reaps the child.
public func runGPSLogOnTerminal(_ arguments: [String], database: String? = nil) throws -> (
    output: String, status: Int32
) {
    let script = """
        import os, pty, sys
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(sys.argv[1], sys.argv[1:])
        out = bytearray()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        _, status = os.waitpid(pid, 0)
        sys.stdout.buffer.write(bytes(out))
        sys.exit(os.waitstatus_to_exitcode(status) & 0xFF)
        """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-c", script, TestPaths.gpslogBinary] + arguments
    var env = ProcessInfo.processInfo.environment.withoutConfigFiles
    env["GPSLOG_DB"] = database
    env["TERM"] = "xterm"
    process.environment = env
    let out = Pipe()
    process.standardOutput = out
    process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
    try process.runClosingFiles()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (String(decoding: data, as: UTF8.self), process.terminationStatus)
}
