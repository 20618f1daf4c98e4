// SPDX-License-Identifier: MIT
import CGEOS

/// A raw GEOS context handle.
public typealias GEOSContextHandle = GEOSContextHandle_t

/// One GEOS context: geometries made with it must be used with it, on one thread at a time.
///
/// Concurrency model: keep one context per task or actor (GEOS contexts are not thread-safe), and reuse it across
/// operations instead of creating one per call in hot loops.
public final class GEOSContext {
    /// The raw handle, finished in `deinit`.
    public let handle: GEOSContextHandle
    /// Messages GEOS reported since the last `takeMessages()`.
    fileprivate(set) var messages: [String] = []

    /// Makes a context with its message handlers installed; throws when GEOS cannot make one. See `GEOS_init_r`.
    public init() throws {
        guard let handle = GEOS_init_r() else { throw GEOSError(operation: "GEOS_init_r", messages: []) }
        self.handle = handle
        // Unmanaged: the handler's user data is this context, which outlives the handle (finished in deinit).
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = GEOSContext_setErrorMessageHandler_r(
            handle,
            { message, userData in
                guard let message, let userData else { return }
                let context = Unmanaged<GEOSContext>.fromOpaque(userData).takeUnretainedValue()
                context.messages.append(String(cString: message))
            }, me)
    }

    deinit { GEOS_finish_r(handle) }

    /// The one funnel from GEOS failures to Swift errors: throws with the messages GEOS reported.
    func failure(_ operation: String) -> GEOSError {
        defer { messages.removeAll() }
        return GEOSError(operation: operation, messages: messages)
    }

    /// GEOS's version string.
    public var version: String { String(cString: GEOSversion()) }
}

@available(*, unavailable)
extension GEOSContext: Sendable {}
