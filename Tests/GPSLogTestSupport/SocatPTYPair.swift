// SPDX-License-Identifier: MIT
import Foundation

/// Two pseudo-terminals joined by socat (Debian's `socat`), standing in for a USB receiver: the recorder reads
/// `device` as its serial port, the test writes NMEA into `feed`. Ending socat unplugs the receiver (the reader's
/// read(2) fails with EIO, and socat removes both links); starting it again with the same link names plugs it back
/// in, on new /dev/pts numbers, as a udev symlink points at a new /dev/ttyUSB after a replug.
public final class SocatPTYPair {
    /// The receiver's side (a symlink to a /dev/pts device), for `--source nmea:PATH`.
    public let device: String
    /// The side the test writes into.
    public let feed: String
    private let log: String
    private var process: Process?
    private var feedHandle: FileHandle?

    /// True when socat is installed (`make test` installs it).
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/socat") }

    /// Plugs the pair in: `folder/gps0` and `folder/feed`.
    public init(folder: String) throws {
        device = folder + "/gps0"
        feed = folder + "/feed"
        log = folder + "/socat.err"
        try plugIn()
    }

    /// Starts socat and returns once both links point at terminals (within 10 s).
    public func plugIn() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/socat")
        p.arguments = ["-d", "-d", "pty,raw,echo=0,link=\(device)", "pty,raw,echo=0,link=\(feed)"]
        if !FileManager.default.fileExists(atPath: log) {
            _ = FileManager.default.createFile(atPath: log, contents: nil)
        }
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try err.seekToEnd()
        p.standardError = err
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try p.runClosingFiles()
        process = p
        let up = waitUntil(timeout: 10) { Self.isTerminal(device) && Self.isTerminal(feed) }
        guard up else { throw POSIXError(.ETIMEDOUT) }
    }

    /// Ends socat (SIGKILL, as a cable pulled: the reader sees EIO) and waits for it; the links are gone after.
    public func unplug() {
        try? feedHandle?.close()
        feedHandle = nil
        guard let p = process else { return }
        process = nil
        // SIGKILL: a child started from the test process may inherit SIGTERM blocked, and socat then never ends.
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        // A killed socat leaves its links pointing at terminals that no longer exist, as udev removes its symlink
        // when a receiver goes: remove them.
        unlink(device)
        unlink(feed)
    }

    /// Writes `text` into the feed side, as the receiver would send it.
    public func write(_ text: String) throws {
        if feedHandle == nil { feedHandle = FileHandle(forWritingAtPath: feed) }
        guard let feedHandle else { throw POSIXError(.ENOENT) }
        try feedHandle.write(contentsOf: Data(text.utf8))
    }

    /// What socat logged (`-d -d`), for failure messages.
    public var socatLog: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    private static func isTerminal(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR
    }

    deinit { unplug() }
}
