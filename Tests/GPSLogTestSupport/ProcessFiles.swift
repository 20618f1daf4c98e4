// SPDX-License-Identifier: MIT
import Foundation

extension Process {
    /// `run()`, then closes this process's copies of the files given to the child as its standard input, output and
    /// error (`FileHandle`s, not `Pipe`s, whose ends Foundation manages): the child has its own, and Foundation keeps
    /// ours open for as long as something holds the `Process`. A full test run leaked over a thousand of them
    /// (`recorder.out`, `/dev/null`), which pushed the descriptors the code under test opens past 1024.
    public func runClosingFiles() throws {
        try run()
        for case let handle as FileHandle in [standardInput, standardOutput, standardError] { try? handle.close() }
    }
}
