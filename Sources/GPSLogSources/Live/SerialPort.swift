// SPDX-License-Identifier: MIT
import Foundation
import GPSLogSystem

/// Serial line set-up for NMEA receivers (USB GPS pucks show up as /dev/ttyUSB* or /dev/ttyACM*).
public enum SerialPort {
    /// The baud rates NMEA receivers use.
    public static let supportedBauds = [4800, 9600, 19200, 38400, 57600, 115200]

    /// Puts a terminal device in raw 8N1 mode at `baud`, ignoring modem lines (termios). The settings stay on the
    /// device after this descriptor is closed, for the reader that opens it next.
    public static func configure(path: String, baud: Int) throws {
        let fd: Int32
        do { fd = try systemCall { open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) } } catch {
            throw SourceError.cannotOpen(path: path, reason: error.reason)
        }
        defer { close(fd) }
        var tio = termios()
        do { try systemCall { tcgetattr(fd, &tio) } } catch {
            throw SourceError.cannotOpen(path: path, reason: "not a serial device (\(error.reason))")
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
        do { try systemCall { tcsetattr(fd, TCSANOW, &tio) } } catch {
            throw SourceError.cannotOpen(path: path, reason: "cannot set \(baud) baud (\(error.reason))")
        }
    }

    /// True for character devices (a serial line), false for files and pipes.
    public static func isCharacterDevice(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR
    }
}
