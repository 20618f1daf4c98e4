// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogStore
import GPSLogSystem
import Logging

/// Who sent a request, by its token.
public enum Identity: Sendable, Equatable {
    /// No token is asked for: serve on loopback without `--token` and without device tokens.
    case anyone
    /// The holder of `serve --token`: one person's setup, who may write as any device.
    case admin
    /// The holder of a device token (`gpslog device add USER/DEVICE`): writes only as that device.
    case device(user: String, device: String)
}

/// Whom a request is refused for, or who it is.
public enum Identification: Sendable, Equatable {
    /// The token is good (or none is needed).
    case known(Identity)
    /// No good token: why, for the log (names a device, never a token).
    case refused(String)
}

/// A device a payload says it comes from: a part not said is nil. Overland's `device_id` (`DEVICE` or
/// `USER/DEVICE`), OwnTracks' `X-Limit-U`/`X-Limit-D`, its topic (`owntracks/USER/DEVICE`), the Basic user, and
/// Traccar/OsmAnd's `id` are each one claim.
public struct DeviceClaim: Sendable, Equatable {
    /// The user named, if any.
    public var user: String?
    /// The device named, if any.
    public var device: String?
    /// Where the claim was read (`Overland device_id`, `X-Limit-U`...), for the refusal.
    public var source: String

    /// A claim of its parts.
    public init(user: String?, device: String?, source: String) {
        self.user = user
        self.device = device
        self.source = source
    }

    /// A claim of one text: `USER/DEVICE` names both, a text without `/` the device alone (`asUser`: the user alone).
    public init(_ text: String, source: String, asUser: Bool = false) {
        if let slash = text.firstIndex(of: "/") {
            self.init(
                user: String(text[..<slash]), device: String(text[text.index(after: slash)...]), source: source)
        } else {
            self.init(user: asUser ? text : nil, device: asUser ? nil : text, source: source)
        }
    }
}

/// What the receiver does with an authenticated payload.
public enum Decision: Sendable, Equatable {
    /// Store it as the devices it names (the admin, or anyone on an open loopback serve).
    case asClaimed
    /// Store it all as this device (`USER/DEVICE`), whatever it names.
    case asDevice(String)
    /// Refuse it (403): a claim names another device; the words say which, for the log and the answer.
    case refused(String)
}

/// The one place that decides who may write as which device, for every protocol serve takes (HTTP's Overland and
/// OwnTracks, MQTT's topics, and whatever comes next): `identify` a request's tokens, then `authorize` what its
/// payload claims.
///
/// Accounts are on while the database holds any device (`gpslog device add`, revoked ones included, so that revoking
/// the last device does not open the receiver); then every request needs a token: a device's, or `--token`'s. Tokens
/// are looked up by their SHA-256 on each request, in the unique index of hashes (two indexed reads, microseconds
/// beside a batch's transaction): no cache, so a revoked token is refused from the next request on.
public actor DeviceAuthority {
    /// The SQLite database holding Users and Devices; nil: none (PostgreSQL without a local database).
    private let store: Store?
    /// `serve --token`.
    private let adminToken: AccessToken?
    private let logger: Logger
    private let thread = StoreThread()
    /// Devices whose MQTT messages were dropped, each said once.
    private var droppedTopics: Set<String> = []
    /// When serve last wrote each device's LastUsedAt.
    private var lastMarked: [Int64: Timestamp] = [:]
    /// LastUsedAt is written at most this often per device, to keep writes off the request path.
    static let markInterval: Int64 = 60_000

    /// Its own thread: the lookups block, and must not hold up the threads that serve HTTP.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { thread.executor }

    /// An authority over the accounts of the SQLite file at `databasePath` (nil: no accounts), with `adminToken`
    /// as the one-person token.
    public init(databasePath: String?, adminToken: AccessToken?, logger: Logger) throws {
        store = try databasePath.map { try Store(path: $0) }
        self.adminToken = adminToken
        self.logger = logger
    }

    /// Closes the database and ends the thread.
    public func close() async {
        store?.close()
        await thread.shutdown()
    }

    /// Who sends `tokens` (a request's Bearer, query and Basic password, in that order).
    public func identify(tokens: [String]) -> Identification {
        if let adminToken, tokens.contains(where: { Self.equal($0, adminToken.secret) }) { return .known(.admin) }
        let accounts: Bool
        do {
            accounts = try store?.hasDevices() ?? false
        } catch {
            logger.error("cannot read the devices: \(describeForPeople(error).visible)")
            return .refused("the devices cannot be read now")
        }
        if !accounts { return adminToken == nil ? .known(.anyone) : .refused("missing or wrong token") }
        for token in tokens where token.hasPrefix(DeviceToken.prefix) && token.utf8.count < 256 {
            let holder: TokenHolder?
            do {
                holder = try store?.tokenHolder(hash: DeviceToken.hash(token))
            } catch {
                logger.error("cannot read the devices: \(describeForPeople(error).visible)")
                return .refused("the devices cannot be read now")
            }
            guard let holder else { continue }
            if holder.revoked != nil {
                return .refused("the token of \((holder.user + "/" + holder.device).visible) was revoked")
            }
            markUsed(holder.deviceKey)
            return .known(.device(user: holder.user, device: holder.device))
        }
        return .refused("missing or wrong token")
    }

    /// The decision for a payload of `identity` that names `claims`: a device token writes as its own device, and a
    /// claim that names another user or device is refused.
    public nonisolated static func authorize(_ identity: Identity, claims: [DeviceClaim]) -> Decision {
        guard case .device(let user, let device) = identity else { return .asClaimed }
        for claim in claims {
            if let u = claim.user, u != user {
                return .refused("\(claim.source) names the user '\(u)', but the token is \(user)/\(device)'s")
            }
            if let d = claim.device, d != device {
                return .refused("\(claim.source) names the device '\(d)', but the token is \(user)/\(device)'s")
            }
        }
        return .asDevice(user + "/" + device)
    }

    /// Whether a message on `owntracks/USER/DEVICE` is stored: always without accounts; with them, only for a device
    /// that exists and is not revoked (the broker's ACL keeps each device in its own topic). A refused device is
    /// logged once.
    public func allowsTopicDevice(_ device: String) -> Bool {
        guard let store else { return true }
        do {
            guard try store.hasDevices() else { return true }
            let claim = DeviceClaim(device, source: "topic")
            if let user = claim.user, let name = claim.device, let account = try store.device(user: user, device: name),
                account.revoked == nil
            {
                return true
            }
            if droppedTopics.insert(device).inserted {
                logger.warning(
                    "dropped MQTT messages of '\(device.visible)': no such device, or it was revoked (`gpslog device list`)"
                )
            }
            return false
        } catch {
            logger.error("cannot read the devices: \(describeForPeople(error).visible)")
            return false
        }
    }

    /// Writes the device's LastUsedAt, at most once a minute.
    private func markUsed(_ key: Int64) {
        let now = Timestamp(seconds: Date().timeIntervalSince1970)
        if let last = lastMarked[key], now.milliseconds - last.milliseconds < Self.markInterval { return }
        lastMarked[key] = now
        do { try store?.markDeviceUsed(key, at: now) } catch {
            logger.warning("cannot note when a device was last used: \(describeForPeople(error).visible)")
        }
    }

    /// Compares in constant time, so the answer's timing says nothing about the token.
    nonisolated static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var diff = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) { diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0) }
        return diff == 0
    }
}
