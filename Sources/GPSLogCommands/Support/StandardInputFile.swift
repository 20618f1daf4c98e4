// SPDX-License-Identifier: MIT
import Foundation
import GPSLogImportExport

/// Runs `body` on `file`, or, for `-`, on a private copy of standard input; errors about the copy name "standard
/// input" instead of its temporary path.
func withInputFile<T>(_ file: String, _ body: (String) throws -> T) throws -> T {
    guard file == "-" else { return try body(file) }
    let input = try StandardInput()
    do {
        return try body(input.path)
    } catch let error as LocalizedError {
        throw CommandError.refused(input.rename(in: error.errorDescription ?? "\(error)"))
    }
}

/// What messages call `file`.
func displayName(ofInput file: String) -> String { file == "-" ? StandardInput.displayName : file }
