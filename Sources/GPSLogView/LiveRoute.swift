// SPDX-License-Identifier: MIT
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `/api/sessions/ID/live`: a recording's track as it grows, as Server-Sent Events. Each new track point is an
/// event (`event: point`, its cursor as the id, the point as JSON); the stream ends with `event: end` once the
/// session is closed. The recorder is another process: the database is looked at every second. A browser that
/// loses the stream reconnects by itself and sends `Last-Event-ID`, so nothing is missed or sent twice.
enum LiveRoute {
    /// The longest a stream stays open; the browser then reconnects where it stopped.
    static let maxSeconds = 600

    /// Adds the route at `path`; `gate` gives the request's view of the data (nil: not allowed).
    static func register<Context: RequestContext>(
        on router: Router<Context>, path: String,
        gate: @escaping @Sendable (Request, Context) async throws -> ViewData?
    ) {
        router.get(RouterPath(path)) { request, context in
            guard let data = try await gate(request, context) else { return APIRoutes.unauthorized }
            let id = try context.parameters.require("id")
            let given =
                request.headers[HTTPField.Name("Last-Event-ID")!]
                ?? request.uri.queryParameters["after"].map(String.init)
            var cursor: (time: Int64, key: Int64)?
            if let given {
                guard let parsed = parse(given) else {
                    return APIRoutes.bad("after must be TIME:KEY, as event ids are")
                }
                cursor = parsed
            }
            guard try await data.session(id) != nil else { return APIRoutes.notFound }
            let start = cursor
            let body = ResponseBody { writer in
                var cursor = start
                var series = ChartSeries()
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                for second in 0..<maxSeconds {
                    guard let batch = try await data.live(id, after: cursor, series: series) else { break }
                    series = batch.series
                    var text = ""
                    for (id, point) in batch.points {
                        text +=
                            "id: \(id)\nevent: point\ndata: \(String(decoding: try encoder.encode(point), as: UTF8.self))\n\n"
                        cursor = parse(id)
                    }
                    if batch.ended && batch.points.isEmpty { text += "event: end\ndata: {}\n\n" }
                    // A comment now and then keeps proxies from closing a quiet stream.
                    if text.isEmpty && second % 15 == 0 { text = ": waiting for the recorder\n\n" }
                    if !text.isEmpty { try await writer.write(ByteBuffer(string: text)) }
                    if batch.ended && batch.points.isEmpty { break }
                    try await Task.sleep(for: .seconds(1))
                }
                try await writer.finish(nil)
            }
            return Response(
                status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
        }
    }

    /// `TIME:KEY` (milliseconds and row key).
    static func parse(_ text: String) -> (time: Int64, key: Int64)? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let time = Int64(parts[0]), let key = Int64(parts[1]) else { return nil }
        return (time, key)
    }
}
