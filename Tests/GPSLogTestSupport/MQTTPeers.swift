// SPDX-License-Identifier: MIT
import Foundation

/// Debian's `mosquitto_sub` in the background, subscribed to a filter with a persistent session at QoS 1, writing
/// each message it gets as `RETAINED|TOPIC|PAYLOAD` lines to a file: the consumer a recorder publishes to.
public final class MQTTSubscriber {
    private let process = Process()
    private let output: String
    /// Its MQTT client id, `tester-` and eight random characters (its persistent session's name).
    public let clientID = "tester-\(UUID().uuidString.prefix(8))"

    /// One message as the subscriber got it.
    public struct Message: Sendable {
        /// Whether the broker delivered it as a retained message.
        public var retained: Bool
        /// The topic it was published to.
        public var topic: String
        /// The payload, as text.
        public var payload: String
        /// The payload as a JSON object (nil when it is not one).
        public var json: [String: Any]? {
            try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any]
        }
    }

    /// Subscribes to `filter` on the broker at `port` (with `arguments` added: TLS, a login) and returns once the
    /// broker logged the subscription.
    public init(
        broker: MosquittoBroker, filter: String = "owntracks/#", folder: String, arguments: [String] = []
    ) throws {
        output = folder + "/\(clientID).txt"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        process.arguments =
            [
                "-h", "127.0.0.1", "-p", "\(broker.port)", "-t", filter, "-q", "1", "-i", clientID, "-c",
                "-F", "%r|%t|%p",
            ] + arguments
        process.standardOutput = FileHandle(forWritingAtPath: output)
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.runClosingFiles()
        guard waitUntil(timeout: 20, { broker.logText.contains("\(clientID) \(1) \(filter)") || !process.isRunning }),
            process.isRunning
        else { throw POSIXError(.ECONNREFUSED) }
    }

    /// What arrived so far, in order.
    public var messages: [Message] {
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { return nil }
            return Message(retained: parts[0] == "1", topic: String(parts[1]), payload: String(parts[2]))
        }
    }

    deinit {
        // SIGKILL: mosquitto_sub with a persistent session does not end on SIGTERM.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// A TCP relay (socat) from a loopback port to a broker: ending it is, for the client behind it, the broker going
/// away (its connection reset, new ones refused); starting it again on the same port brings the broker back.
public final class TCPRelay {
    /// The loopback port the relay listens on: the broker's address for the client behind it.
    public let port: Int
    private let target: Int
    private var process: Process?

    /// Starts relaying a new loopback port to `target`.
    public init(to target: Int) throws {
        self.target = target
        port = try freeLoopbackPort()
        try start()
    }

    /// Starts relaying again on the same port; returns once it accepts connections.
    public func start() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/socat")
        p.arguments = ["TCP-LISTEN:\(port),bind=127.0.0.1,reuseaddr,fork", "TCP:127.0.0.1:\(target)"]
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.runClosingFiles()
        process = p
        guard waitUntil(timeout: 10, { loopbackAccepts(port: port) }) else { throw POSIXError(.EADDRINUSE) }
    }

    /// Ends the relay and every connection through it (socat's children, one per connection).
    public func stop() {
        guard let p = process else { return }
        let children = Process()
        children.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
        children.arguments = ["-KILL", "-P", "\(p.processIdentifier)"]
        try? children.run()
        children.waitUntilExit()
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        process = nil
    }

    deinit { stop() }
}

/// A certificate authority, a broker certificate for 127.0.0.1 and a client certificate, made by `openssl` in
/// `folder` (PEM files), for a TLS listener and its clients.
public struct TestCertificates {
    /// The authority's certificate, `folder/ca.crt`, that both sides trust.
    public let ca: String
    /// The broker's certificate for 127.0.0.1 and localhost, `folder/server.crt`.
    public let serverCertificate: String
    /// The broker's private key, `folder/server.key`.
    public let serverKey: String
    /// The client's certificate, `folder/client.crt`, for client authentication.
    public let clientCertificate: String
    /// The client's private key, `folder/client.key`.
    public let clientKey: String

    /// Makes the authority and both certificates in `folder`; throws when `openssl` fails.
    public init(folder: String) throws {
        ca = folder + "/ca.crt"
        serverCertificate = folder + "/server.crt"
        serverKey = folder + "/server.key"
        clientCertificate = folder + "/client.crt"
        clientKey = folder + "/client.key"
        let caKey = folder + "/ca.key"
        try Self.openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", caKey, "-out", ca, "-days", "2",
            "-subj", "/CN=gpslog test CA",
        ])
        for (name, subject, ext) in [
            ("server", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1,DNS:localhost"),
            ("client", "/CN=gpslog-client", "extendedKeyUsage=clientAuth"),
        ] {
            let key = folder + "/\(name).key"
            let request = folder + "/\(name).csr"
            let extensions = folder + "/\(name).ext"
            try ext.write(toFile: extensions, atomically: true, encoding: .utf8)
            try Self.openssl([
                "req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", request, "-subj", subject,
            ])
            try Self.openssl([
                "x509", "-req", "-in", request, "-CA", ca, "-CAkey", caKey, "-CAcreateserial", "-out",
                folder + "/\(name).crt", "-days", "2", "-extfile", extensions,
            ])
        }
    }

    /// The listener lines of a broker that takes TLS only, and only clients with a certificate of this CA.
    public var listenerOptions: String {
        "cafile \(ca)\ncertfile \(serverCertificate)\nkeyfile \(serverKey)\nrequire_certificate true\n"
    }

    static func openssl(_ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        p.arguments = arguments
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.runClosingFiles()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw POSIXError(.EINVAL) }
    }
}
