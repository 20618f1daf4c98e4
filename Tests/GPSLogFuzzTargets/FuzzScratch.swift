// SPDX-License-Identifier: MIT
import Foundation
import GPSLogStore

#if canImport(Glibc)
    import Glibc
#endif

/// The process's scratch folder: the readers that only take paths get each input as one file there (the same path,
/// rewritten per input). In memory (`/dev/shm`) where there is one, so thousands of inputs a second cost no disk.
/// Removed when the process exits.
enum FuzzScratch {
    static let folder: String = {
        let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : NSTemporaryDirectory()
        var template = Array((base + "/gpslog-fuzz-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            fatalError("cannot make a scratch folder in \(base): \(String(cString: strerror(errno)))")
        }
        atexit { try? FileManager.default.removeItem(atPath: FuzzScratch.folder) }
        return String(cString: made)
    }()

    /// Writes `input` to `name` in the scratch folder and returns its path.
    static func write(_ input: UnsafeRawBufferPointer, as name: String) -> String {
        let path = folder + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { fatalError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var done = 0
        while done < input.count {
            let n = Glibc.write(fd, input.baseAddress! + done, input.count - done)
            guard n > 0 else { fatalError("cannot write \(path): \(String(cString: strerror(errno)))") }
            done += n
        }
        return path
    }

    /// A store in the scratch folder, opened once per process (the importers that write only into a `Store`). Each
    /// target deletes the sessions it imported, so it stays small.
    nonisolated(unsafe) static let store: Store = {
        do {
            return try Store(path: folder + "/fuzz.sqlite")
        } catch {
            fatalError("cannot open a scratch store: \(error)")
        }
    }()
}
