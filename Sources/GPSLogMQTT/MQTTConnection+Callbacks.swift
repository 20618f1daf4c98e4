// SPDX-License-Identifier: MIT
import CMosquitto
import Foundation

/// libmosquitto's callbacks. They run inside `mosquitto_loop_read` (and `mosquitto_loop_write` for a DISCONNECT), so
/// on the loop thread: the loop's own fields need no lock, and only what other threads wait for is set under `shared`.
extension MQTTConnection {
    private static func connection(_ obj: UnsafeMutableRawPointer?) -> MQTTConnection? {
        obj.map { Unmanaged<MQTTConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    static let connectCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = {
        _, obj, code in
        guard let c = connection(obj) else { return }
        if code == 0 { c.established = true } else { c.refusalCode = code }
        let refusal = code == 0 ? nil : MQTTError.refused(broker: c.broker, message: c.refusalText(code))
        c.shared.withLock {
            c.connack = code
            c.connected = code == 0
            if code == 0 { c.lastFailure = nil }
            if c.connectError == nil, let refusal { c.connectError = refusal }
            c.settleWaiters()
            c.shared.broadcast()
        }
        c.onConnection?(code)
    }

    static let disconnectCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = {
        _, obj, _ in
        guard let c = connection(obj) else { return }
        // A refused CONNECT ends in a disconnect too: report only the loss of a connection that was made.
        let wasConnected = c.shared.withLock {
            defer {
                c.connected = false
                c.settleWaiters()
                c.shared.broadcast()
            }
            return c.connected
        }
        if wasConnected { c.onConnection?(nil) }
    }

    static let publishCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = {
        _, obj, mid in
        guard let c = connection(obj) else { return }
        c.shared.withLock {
            guard c.waiting.contains(mid) else { return }
            c.acknowledged.insert(mid)
            c.settleWaiters()
            c.shared.broadcast()
        }
    }

    static let subscribeCallback:
        @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, Int32, UnsafePointer<Int32>?) -> Void = {
            _, obj, _, _, _ in
            connection(obj)?.onSubscribed?()
        }

    static let messageCallback:
        @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafePointer<mosquitto_message>?) -> Void = {
            _, obj, message in
            guard let c = connection(obj), let m = message?.pointee, let topic = m.topic else { return }
            let name = String(cString: topic)
            // Refused by its size before it is copied or decoded.
            if let limit = c.payloadLimit?(name), Int(m.payloadlen) > limit {
                c.onOversized?(name, Int(m.payloadlen))
                return
            }
            let payload = m.payload.map { Data(bytes: $0, count: Int(m.payloadlen)) } ?? Data()
            guard let deliver = c.onDelivery else { return c.onMessage?(name, payload, m.retain) ?? () }
            if !deliver(name, payload, m.retain) {
                // Not kept: its PUBACK, queued but written only by the loop (the client is threaded), must never go
                // out. Shut, nothing more is written on this connection; the broker sends the message again on the
                // next (shutdown, not close: the descriptor stays libmosquitto's).
                let socket = mosquitto_socket(c.handle)
                if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
            }
        }
}
