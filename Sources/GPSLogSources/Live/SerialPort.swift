// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSystem

/// Serial line set-up for NMEA receivers (USB GPS pucks show up as /dev/ttyUSB* or /dev/ttyACM*).
public enum SerialPort {
    /// The baud rates NMEA receivers use.
    public static let supportedBauds = [4800, 9600, 19200, 38400, 57600, 115200]

    /// Puts a terminal device in raw 8N1 mode at `baud`, ignoring modem lines (termios). The settings stay on the
    /// device after this descriptor is closed, for the reader that opens it next.
    /// - Throws: `SourceError.cannotOpen` naming the device and why.
    public static func configure(path: String, baud: Int) throws {
        do { close(try openDevice(path: path, baud: baud)) } catch { throw error.error }
    }

    /// Opens a terminal device for reading and sets it to raw 8N1 at `baud`, ignoring modem lines: the same
    /// termios settings every time, so a receiver that was unplugged is read as before once it is back.
    /// The descriptor blocks on read(2); the caller closes it.
    static func openDevice(path: String, baud: Int) throws(SerialOpenError) -> Int32 {
        // O_NONBLOCK so that open(2) does not wait for a carrier; reads block again below.
        let fd: Int32
        do { fd = try systemCall { open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) } } catch {
            throw SerialOpenError(code: error.code, error: .cannotOpen(path: path, reason: error.reason))
        }
        do {
            try setUp(fd, path: path, baud: baud)
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    private static func setUp(_ fd: Int32, path: String, baud: Int) throws(SerialOpenError) {
        var tio = termios()
        do { try systemCall { tcgetattr(fd, &tio) } } catch {
            throw SerialOpenError(
                code: error.code, error: .cannotOpen(path: path, reason: "not a serial device (\(error.reason))"))
        }
        cfmakeraw(&tio)
        tio.c_cflag |= tcflag_t(CLOCAL | CREAD)
        tio.c_cflag &= ~tcflag_t(HUPCL)
        let speed: speed_t
        switch baud {
        case 4800: speed = speed_t(B4800)
        case 9600: speed = speed_t(B9600)
        case 19200: speed = speed_t(B19200)
        case 38400: speed = speed_t(B38400)
        case 57600: speed = speed_t(B57600)
        default: speed = speed_t(B115200)
        }
        cfsetispeed(&tio, speed)
        cfsetospeed(&tio, speed)
        do {
            try systemCall { tcsetattr(fd, TCSANOW, &tio) }
            let flags = try systemCall { fcntl(fd, F_GETFL) }
            try systemCall { fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        } catch {
            throw SerialOpenError(
                code: error.code, error: .cannotOpen(path: path, reason: "cannot set \(baud) baud (\(error.reason))"))
        }
    }

    /// True for character devices (a serial line), false for files and pipes.
    public static func isCharacterDevice(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR
    }

    /// True when `path` names a receiver to read through unplugs: a character device, or a path under /dev/ that
    /// is not there yet (a udev symlink such as /dev/gps0 appears only once the receiver is plugged in).
    public static func isDevicePath(_ path: String) -> Bool {
        if isCharacterDevice(path) { return true }
        var st = stat()
        return path.hasPrefix("/dev/") && stat(path, &st) != 0 && errno == ENOENT
    }
}

/// Why a device could not be opened: errno, and the error a user sees.
struct SerialOpenError: Error {
    let code: Int32
    let error: SourceError

    /// The device is not there (unplugged, not created yet by udev, a symlink to nothing, a pty whose other end is
    /// gone): worth waiting for, where a refusal (permissions, not a terminal) is not.
    var isAbsent: Bool { [ENOENT, ENXIO, ENODEV, EIO].contains(code) }
}
