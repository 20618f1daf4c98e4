// SPDX-License-Identifier: MIT
import Foundation

/// Writes a large generated file without holding it: `head`, then `item(i)` for each `i` in `0..<count`, then
/// `tail`, in chunks of about a megabyte.
public func writeGeneratedFile(
    _ path: String, head: String, count: Int, tail: String, item: (Int) -> String
) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil) else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
    }
    let out = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? out.close() }
    var text = head
    for i in 0..<count {
        text += item(i)
        if text.utf8.count > 1 << 20 {
            try out.write(contentsOf: Data(text.utf8))
            text = ""
        }
    }
    text += tail
    try out.write(contentsOf: Data(text.utf8))
}
