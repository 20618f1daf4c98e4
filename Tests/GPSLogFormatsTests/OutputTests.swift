// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogTestSupport
import Testing

/// Where export bytes go: set aside in a scratch file, or written whole to an output file.
@Suite(.ownThreads)
struct OutputTests {
    @Test func aScratchFileSpillsToDiskAndCopiesBackInOrder() throws {
        try withTemporaryDirectory { dir in
            let scratch = ScratchFile(limit: 100)
            var expected: [UInt8] = []
            for i in 0..<5_000 {
                let piece = Array("\(i),".utf8)
                expected += piece
                try scratch.append { $0 += piece }
            }
            let out = try OutputFile(path: dir + "/copy.txt")
            try out.write("<")
            try scratch.copy(to: out)
            try out.write(">")
            try out.commit()
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: dir + "/copy.txt"))
                    == Data([UInt8(ascii: "<")] + expected + [UInt8(ascii: ">")]))
        }
    }
}
