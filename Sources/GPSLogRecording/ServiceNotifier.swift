// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogSystem
import Logging

/// Tells systemd how a `Type=notify` service is doing: `READY=1`, `WATCHDOG=1`, `STATUS=...`, `STOPPING=1`.
///
/// The sd_notify protocol is one datagram of newline-separated `KEY=VALUE` lines sent to the Unix datagram socket
/// named by `$NOTIFY_SOCKET`: a path, or an abstract socket when it starts with `@`. It is written here by hand
/// because it is a dozen lines, and libsystemd would be a C library linked for nothing else (and absent on systems
/// without systemd). See sd_notify(3): <https://www.freedesktop.org/software/systemd/man/latest/sd_notify.html>.
///
/// The class owns the socket and closes it in `deinit`.
public final class ServiceNotifier: @unchecked Sendable {
    // @unchecked: every stored property is immutable after init; sendto(2) on one socket is safe from any thread.
    private let socket: Int32
    private let address: sockaddr_un
    private let addressLength: socklen_t

    /// How often systemd expects `WATCHDOG=1` (`$WATCHDOG_USEC`, when `$WATCHDOG_PID` is unset or this process);
    /// nil when the unit has no `WatchdogSec=`.
    public let watchdogTimeout: Duration?

    /// The notifier the environment asks for, or nil when the process does not run under systemd's `Type=notify`
    /// (no `$NOTIFY_SOCKET`). A `$NOTIFY_SOCKET` that names no usable socket is logged and ignored, as sd_notify
    /// ignores it: the service runs, only its state is not reported.
    public convenience init?(environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger) {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return nil }
        do {
            try self.init(socketPath: path, watchdog: Self.watchdog(environment))
        } catch {
            logger.warning("NOTIFY_SOCKET=\(path.visible): \(describeForPeople(error)); not reporting to systemd")
            return nil
        }
    }

    /// Opens a datagram socket for the notify socket at `socketPath` (`@name`: abstract).
    /// - Throws: `POSIXError` when the path is neither absolute nor abstract, is too long, or `socket(2)` fails.
    public init(socketPath: String, watchdog: Duration?) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(socketPath.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        // > If the first character of $NOTIFY_SOCKET is "@", the string is understood as Linux abstract namespace
        // > socket. (sd_notify(3)) Its name is the rest, after a NUL byte, with no NUL at the end.
        if abstract { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard abstract || bytes.first == UInt8(ascii: "/"), bytes.count < capacity else {
            throw POSIXError(.EINVAL)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        addressLength = socklen_t(pathOffset + bytes.count + (abstract ? 0 : 1))
        self.address = address
        socket = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        watchdogTimeout = watchdog
    }

    deinit {
        close(socket)
    }

    /// Sends `lines` as one notification (`["READY=1", "STATUS=..."]`), without waiting. Returns false when the
    /// datagram could not be sent: systemd went away, the socket is gone, or its queue is full. Nothing here is worth
    /// stopping a recording for.
    @discardableResult
    public func send(_ lines: [String]) -> Bool {
        let message = Array(lines.joined(separator: "\n").utf8)
        var address = address
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddrPointer in
                message.withUnsafeBytes { buffer in
                    // MSG_DONTWAIT: a reader that does not read (a full queue) must never stall the recording; the
                    // next notification says the same again a second later.
                    sendto(
                        socket, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT),
                        sockaddrPointer, addressLength)
                }
            }
        }
        return sent == message.count
    }

    /// `$WATCHDOG_USEC` when it is meant for this process.
    static func watchdog(_ environment: [String: String]) -> Duration? {
        // > WATCHDOG_PID: ... the daemon should ignore the watchdog if the PID does not match. (sd_watchdog_enabled(3))
        if let pid = environment["WATCHDOG_PID"], pid != String(getpid()) { return nil }
        guard let text = environment["WATCHDOG_USEC"], let usec = Int64(text), usec > 0 else { return nil }
        return .microseconds(usec)
    }
}
