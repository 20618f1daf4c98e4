// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel

/// Overland's setup link (the app's "Configuration by Custom URL"):
/// `overland://setup?url=ENDPOINT&token=TOKEN&device_id=ID&unique_id=yes`, each value percent-encoded.
public struct SetupLink: Sendable, Equatable {
    /// The receiver endpoint, http or https.
    public var url: String
    /// The bearer token, when the link has one.
    public var token: AccessToken?
    /// Overland's `device_id`, when the link has one.
    public var deviceID: String?
    /// Whether locations carry Overland's `unique_id`.
    public var uniqueID: Bool

    /// Reads `text`, Overland's setup link (surrounding whitespace is ignored); `unique_id` is on for `yes`, `true`
    /// or `1`.
    public init(_ text: String) throws(SetupLinkError) {
        guard let components = URLComponents(string: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw .notALink
        }
        guard components.scheme?.lowercased() == "overland", components.host?.lowercased() == "setup" else {
            throw .wrongScheme(components.scheme.map { "\($0)://\(components.host ?? "")" } ?? "none")
        }
        func query(_ name: String) -> String? { components.queryItems?.last { $0.name == name }?.value }
        guard let url = query("url"), !url.isEmpty else { throw .noURL }
        guard let endpoint = URLComponents(string: url), ["http", "https"].contains(endpoint.scheme?.lowercased()),
            endpoint.host.map({ !$0.isEmpty }) == true
        else { throw .notHTTP(url) }
        self.url = url
        if let token = query("token") {
            do {
                self.token = try AccessToken(token, origin: "the link's token")
            } catch {
                throw .badToken(error.errorDescription ?? "bad token")
            }
        }
        if let id = query("device_id"), !id.isEmpty {
            guard !id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
                id.utf8.count <= TextLimit.deviceID
            else { throw .badDeviceID }
            deviceID = id
        }
        uniqueID = ["yes", "true", "1"].contains(query("unique_id")?.lowercased() ?? "")
    }
}

/// Why a setup link was refused. The words never hold the token.
public enum SetupLinkError: LocalizedError, Equatable {
    case notALink
    case wrongScheme(String)
    case noURL
    case notHTTP(String)
    case badToken(String)
    case badDeviceID

    /// What is wrong with the link and what to do, for people; never the token.
    public var errorDescription: String? {
        switch self {
        case .notALink:
            "that is not a link: give Overland's setup link, overland://setup?url=...&token=...&device_id=..."
        case .wrongScheme(let scheme):
            "the link starts with \(scheme.visible), not overland://setup: give Overland's setup link, overland://setup?url=...&token=..."
        case .noURL:
            "the link has no url=: Overland's setup link names the receiver endpoint as url=https%3A%2F%2F..."
        case .notHTTP:
            "the link's url= is not an http:// or https:// address with a host: ask the server's owner for a new link."
        case .badToken(let message):
            message
        case .badDeviceID:
            "the link's device_id holds control characters or is longer than \(TextLimit.deviceID) bytes."
        }
    }
}
