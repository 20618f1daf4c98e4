// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Files only their owner may read: the token `config import` stores, the unique id, the config file itself.
public enum PrivateFiles {
    /// Writes `text` to `path` through a temporary file and a rename, mode 0600, creating its folder 0700.
    public static func write(_ text: String, to path: String) throws(PrivateFileError) {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            if !FileManager.default.fileExists(atPath: folder) {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
        } catch {
            throw .cannotWrite(path: path, reason: (error as NSError).localizedDescription)
        }
        let temporary = folder + "/.\((path as NSString).lastPathComponent).\(UUID().uuidString.prefix(8))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotWrite(path: path, reason: String(cString: strerror(errno))) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .cannotWrite(path: path, reason: reason)
        }
    }

    /// Whether users other than the owner may read `path` (group or others have any permission).
    public static func isReadableByOthers(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & 0o077 != 0
    }

    /// The token kept in `path` (`--token-file`): its text less one trailing newline. The words of an error name
    /// the file, never its content.
    public static func token(at path: String) throws(PrivateFileError) -> AccessToken {
        let text = try secret(at: path)
        do {
            return try AccessToken(text, origin: "--token-file \(path.visible)")
        } catch {
            throw .badToken(error.errorDescription ?? "bad token")
        }
    }

    /// The secret kept in `path` (a token or password file): its text less one trailing newline, read up to 4 KiB
    /// and one byte (a longer file is refused, and `/dev/zero` cannot hang the reading). The words of an error name
    /// the file, never its content.
    public static func secret(at path: String) throws(PrivateFileError) -> String {
        let limit = AccessToken.maximumLength
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .cannotRead(
                path: path, reason: FileManager.default.fileExists(atPath: path) ? "not readable" : "no such file")
        }
        defer { try? handle.close() }
        let data: Data
        do { data = try handle.read(upToCount: limit + 3) ?? Data() } catch {
            throw .cannotRead(path: path, reason: "cannot read it")
        }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\r\n") {
            text.removeLast()  // "\r\n" is one Character
        } else if text.hasSuffix("\n") {
            text.removeLast()
        }
        guard text.utf8.count <= limit else { throw .cannotRead(path: path, reason: "longer than \(limit) bytes") }
        return text
    }

    /// The id `--unique-id` sends as Overland's `unique_id`: a random UUID made once and kept in `folder/unique-id`
    /// (as the app keeps iOS's identifierForVendor), never the machine's own id.
    public static func uniqueID(in folder: String) throws(PrivateFileError) -> String {
        let path = folder + "/unique-id"
        if let data = FileManager.default.contents(atPath: path) {
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let id = UUID(uuidString: text) else {
                throw .cannotRead(path: path, reason: "not a UUID; delete it to have a new one made")
            }
            return id.uuidString
        }
        let id = UUID().uuidString
        try write(id + "\n", to: path)
        return id
    }
}

/// Why a private file could not be read or written.
public enum PrivateFileError: LocalizedError, Equatable {
    case cannotRead(path: String, reason: String)
    case cannotWrite(path: String, reason: String)
    case badToken(String)

    /// What could not be done, naming the file, and why, for people; never the file's content.
    public var errorDescription: String? {
        switch self {
        case .cannotRead(let path, let reason): "cannot read \(path.visible): \(reason.visible)"
        case .cannotWrite(let path, let reason): "cannot write \(path.visible): \(reason.visible)"
        case .badToken(let message): message
        }
    }
}
