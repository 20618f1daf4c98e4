// SPDX-License-Identifier: MIT
import Foundation

extension Process {
    /// `run()`, then closes this process's copies of the files given to the child as its standard input, output and
    /// error (`FileHandle`s, not `Pipe`s, whose ends Foundation manages): the child has its own, and Foundation keeps
    /// ours open for as long as something holds the `Process`. A full test run leaked over a thousand of them
    /// (`recorder.out`, `/dev/null`), which pushed the descriptors the code under test opens past 1024.
    ///
    /// Never the test process's own standard input, output or error: a stream the caller did not set is Foundation's
    /// handle of the parent's descriptor 0, 1 or 2, and closing it freed that number for the next file the test
    /// process opened. Swift Testing then wrote its results into whatever file got descriptor 2 (a run that ended
    /// with no summary, exit 0), and another test's closing of "its" standard input closed a file about to become a
    /// child's standard output, whose number a read-only file took: `serve` died writing its first line (EBADF).
    public func runClosingFiles() throws {
        try run()
        for case let handle as FileHandle in [standardInput, standardOutput, standardError]
        where handle.fileDescriptor > STDERR_FILENO {
            try? handle.close()
        }
    }
}
