// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Why an upload stopped. What was confirmed before stays confirmed: a re-run resumes after it.
public enum UploadError: LocalizedError, Equatable {
    /// The URL is not an http(s) or osmand(s) URL (shown without credentials).
    case badURL(String)
    /// The server refused a batch with a 4xx other than 429: retrying would not help.
    case rejected(url: String, status: Int, message: String)
    /// A batch kept failing (network, timeouts, 5xx, 429, an answer that is not a confirmation).
    case gaveUp(url: String, attempts: Int, lastReason: String)

    /// What went wrong and what to do, for people; URLs are shown with secrets hidden.
    public var errorDescription: String? {
        switch self {
        case .badURL(let url):
            return "'\(url)' is not an http(s) URL; give --url http://host:port/path, https://..., or "
                + "osmand://host[:port] for a Traccar server"
        case .rejected(let url, let status, let message):
            return
                "\(url) refused the batch with HTTP \(status): \(message). Nothing after the last confirmed batch was "
                + "marked as sent; check --url and --token, then run again."
        case .gaveUp(let url, let attempts, let lastReason):
            return
                "\(url) did not confirm a batch after \(counted(attempts, "attempt")) (last: \(lastReason)). What it confirmed "
                + "before is kept; run the same command again to resume."
        }
    }
}
