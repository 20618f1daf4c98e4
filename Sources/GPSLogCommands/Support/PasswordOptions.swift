// SPDX-License-Identifier: MIT
import ArgumentParser
import Foundation
import GPSLogArgon2

/// Where `gpslog user add` and `user password` read a password: a terminal (asked twice, not shown), a file, or
/// standard input (its first line) for scripts. The password itself is never printed.
struct PasswordOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Read the password from this file's first line.", valueName: "path"))
    var passwordFile: String?
    @Flag(help: "No password (the user only sends from devices; no web view login).") var noPassword = false

    /// The Argon2id hash of the password read, or nil with --no-password.
    func hash(for user: String) throws -> String? {
        if noPassword {
            guard passwordFile == nil else { throw ValidationError("Give --password-file or --no-password, not both.") }
            return nil
        }
        let password = try read(for: user)
        guard !password.isEmpty else { throw ValidationError("The password is empty: give one, or --no-password.") }
        do { return try PasswordHash.make(password) } catch { throw ValidationError(error.errorDescription ?? "") }
    }

    private func read(for user: String) throws -> String {
        if let passwordFile {
            let text: String
            do { text = try String(contentsOfFile: passwordFile, encoding: .utf8) } catch {
                throw CommandError.file(
                    path: passwordFile, reason: "cannot read the password: \(error.localizedDescription)")
            }
            return firstLine(text)
        }
        if isatty(STDIN_FILENO) == 1 {
            let first = ask("Password for \(user): ")
            guard ask("Again: ") == first else { throw ValidationError("The two passwords differ: nothing changed.") }
            return first
        }
        return firstLine(String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self))
    }

    /// Asks on the terminal without echo.
    private func ask(_ prompt: String) -> String {
        guard let answer = getpass(prompt) else { return "" }
        return String(cString: answer)
    }

    private func firstLine(_ text: String) -> String {
        String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
    }
}
