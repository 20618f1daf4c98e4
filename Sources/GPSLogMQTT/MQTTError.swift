// SPDX-License-Identifier: MIT
import CMosquitto
import Foundation

/// A failure of the MQTT client, with libmosquitto's own words for it.
public enum MQTTError: LocalizedError, Equatable {
    /// A libmosquitto call failed: what gpslog was doing, and `mosquitto_strerror` (or errno's text).
    case library(operation: String, code: Int32, message: String)
    /// The broker refused the connection (`mosquitto_connack_string`: a bad password, not authorised, ...).
    case refused(broker: String, message: String)
    /// The connection failed before the broker accepted the session (an answer that is not MQTT, a TLS failure).
    case failed(broker: String, message: String)
    /// No answer within the time allowed.
    case timedOut(operation: String, seconds: Double)

    /// What failed, in libmosquitto's or the broker's words, and what to check, for people.
    public var errorDescription: String? {
        switch self {
        case .library(let operation, _, let message): "MQTT: \(operation) failed: \(message)"
        case .refused(let broker, let message):
            "the MQTT broker \(broker) refused the connection: \(message); check --mqtt-username and the password"
        case .failed(let broker, let message): "the MQTT broker \(broker) \(message)"
        case .timedOut(let operation, let seconds):
            "MQTT: no answer to \(operation) within \(String(format: "%.0f", seconds)) s; is the broker reachable?"
        }
    }

    /// Turns a libmosquitto status into a Swift error (the one place that reads `mosquitto_strerror`).
    static func check(_ code: Int32, _ operation: @autoclosure () -> String) throws {
        guard code != Int32(MOSQ_ERR_SUCCESS.rawValue) else { return }
        throw make(code, errno: errno, operation())
    }

    /// The error of a failed libmosquitto call, with errno as it was right after it (taken on the thread that made
    /// the call: MOSQ_ERR_ERRNO's own error says more than "see errno").
    static func make(_ code: Int32, errno saved: Int32, _ operation: String) -> MQTTError {
        let message =
            code == Int32(MOSQ_ERR_ERRNO.rawValue)
            ? String(cString: strerror(saved)) : String(cString: mosquitto_strerror(code))
        return .library(operation: operation, code: code, message: message)
    }
}
