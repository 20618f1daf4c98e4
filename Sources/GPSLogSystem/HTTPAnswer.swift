// SPDX-License-Identifier: MIT

/// What an HTTP server's status code tells a client to do next: one reading of the codes for every client gpslog
/// has (the uploader, the network geocoders), so they agree on which answers are worth repeating.
public enum HTTPAnswer: Equatable, Sendable {
    /// 2xx: done (a client may still check the body).
    case success
    /// 429 or 503: the server asks us to slow down. `retryAfter` in seconds, when it sent a Retry-After above zero.
    case rateLimited(retryAfter: Double?)
    /// Any other 5xx (and anything above): the server failed; the same request may work later.
    case serverError
    /// 403: not allowed (blocked, credentials refused, a User-Agent not accepted).
    case forbidden
    /// Any other 4xx: the request itself is refused; repeating it will not help.
    case refused
    /// Anything else (1xx, 3xx: the HTTP client follows redirects, so one that reaches us is unexpected).
    case unexpected

    /// Classifies `status`, reading the Retry-After header's value (seconds) for the codes that slow us down.
    public init(status: Int, retryAfter: String? = nil) {
        switch status {
        case 200..<300: self = .success
        case 429, 503: self = .rateLimited(retryAfter: retryAfter.flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil })
        case 403: self = .forbidden
        case 400..<500: self = .refused
        case 500...: self = .serverError
        default: self = .unexpected
        }
    }
}
