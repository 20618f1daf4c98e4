// SPDX-License-Identifier: MIT
import Foundation
import GPSLogModel
import GPSLogPNG
import GPSLogStore
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix

/// The history map: `/history` (every track the viewer may see on one map), its tiles as PNG pictures at
/// `/history/tiles/{z}/{x}/{y}.png` drawn on the server from the Store's kept tile pyramid (never the points), and
/// `/api/history/at?lat=&lon=&z=`, the session whose track passes under a click.
///
/// Each goes through the viewer's login like the sessions page: a user sees their own tracks, an admin all. A share
/// link (`/s/TOKEN`) shows one session and never reaches the history: no route here is registered under it.
enum HistoryRoutes {
    /// The tile route's template, for Leaflet.
    static let tileTemplate = "/history/tiles/{z}/{x}/{y}.png"

    /// Registers the page, its tiles and the click lookup.
    static func register<Context: RequestContext>(
        logins: Logins, tiles: MapTiles?, on router: Router<Context>
    ) {
        router.get("/history") { request, _ in
            guard let viewer = try await logins.viewer(request) else { return WebView.toLogin }
            // A filter the tiles would refuse is said by them; the page then places the map as unfiltered.
            let filter = (try? Self.filter(request).get()) ?? HistoryFilter()
            let bounds = try await read(logins.sessions) { try $0.historyBounds(viewer: viewer, filter: filter) }
            let q = request.uri.queryParameters
            let field = { (name: String) in q[Substring(name)].map(String.init) ?? "" }
            return WebView.html(
                Pages.history(
                    tiles: tiles, bounds: bounds, filtered: !filter.isEmpty, from: field("from"), to: field("to"),
                    device: field("device"), mode: field("mode"), style: field("style")))
        }
        router.get("/history/tiles/:z/:x/:y") { request, context in
            guard let viewer = try await logins.viewer(request) else { return APIRoutes.unauthorized }
            var y = context.parameters.get("y") ?? ""
            guard y.hasSuffix(".png") else { return APIRoutes.bad("a history tile is /history/tiles/Z/X/Y.png") }
            y.removeLast(4)
            guard let (z, x, yy) = Basemap.address(context.parameters.get("z"), context.parameters.get("x"), y),
                z <= HistoryRaster.maxZoom
            else {
                return APIRoutes.bad(
                    "a history tile is /history/tiles/Z/X/Y.png: Z from 0 to \(HistoryRaster.maxZoom), X and Y from 0 to 2^Z-1"
                )
            }
            let q = request.uri.queryParameters
            let filter: HistoryFilter
            switch Self.filter(request) {
            case .success(let f): filter = f
            case .failure(let message): return APIRoutes.bad(message.text)
            }
            guard let style = HistoryPicture.Style(rawValue: q["style"].map(String.init) ?? "lines") else {
                return APIRoutes.bad("style must be lines, heat or visited")
            }
            let png = try await read(logins.sessions) { store in
                let raster = try store.historyTile(z: z, x: x, y: yy, viewer: viewer, filter: filter)
                return raster.isEmpty ? HistoryPicture.empty : try HistoryPicture.png(raster, style: style)
            }
            // The tracks change as entries arrive: the browser asks again each time it shows the tile.
            return Response(
                status: .ok, headers: [.contentType: "image/png", .cacheControl: "private, no-cache"],
                body: .init(byteBuffer: ByteBuffer(bytes: png)))
        }
        router.get("/api/history/at") { request, _ in
            guard let viewer = try await logins.viewer(request) else { return APIRoutes.unauthorized }
            let q = request.uri.queryParameters
            guard let lat = q["lat"].flatMap({ Double(String($0)) }), (-90...90).contains(lat),
                let lon = q["lon"].flatMap({ Double(String($0)) }), (-180...180).contains(lon),
                let z = q["z"].flatMap({ Int(String($0)) }), (0...HistoryRaster.maxZoom).contains(z)
            else {
                return APIRoutes.bad(
                    "lat (-90 to 90), lon (-180 to 180) and z (0 to \(HistoryRaster.maxZoom)) are required numbers")
            }
            // The filters the map shows: a click on a track the filter hides opens nothing.
            let filter: HistoryFilter
            switch Self.filter(request) {
            case .success(let f): filter = f
            case .failure(let message): return APIRoutes.bad(message.text)
            }
            let id = try await read(logins.sessions) { store in
                try store.historySession(
                    latitude: lat, longitude: lon, zoom: z, viewer: viewer, filter: filter, radius: 8)
            }
            guard let id else { return APIRoutes.error(.notFound, "no track passes there") }
            return try APIRoutes.json(["id": id])
        }
    }

    /// A message for a 400 (a `Result`'s failure).
    struct Refusal: Error {
        var text: String
    }

    /// The query's `from`, `to` (ISO 8601 times or days), `device` and `mode`; empty values filter nothing.
    static func filter(_ request: Request) -> Result<HistoryFilter, Refusal> {
        let q = request.uri.queryParameters
        var filter = HistoryFilter()
        for (name, isFrom) in [("from", true), ("to", false)] {
            guard let text = q[Substring(name)].map(String.init), !text.isEmpty else { continue }
            guard let time = Timestamp(iso8601: text) else {
                return .failure(Refusal(text: "\(name) must be an ISO 8601 time or day, e.g. 2024-05-01"))
            }
            if isFrom {
                filter.from = time
            } else {
                // A day alone means the whole day.
                filter.to = text.count == 10 ? Timestamp(milliseconds: time.milliseconds + 86_400_000 - 1) : time
            }
        }
        if let device = q["device"].map(String.init), !device.isEmpty {
            guard device.count <= 64,
                device.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
            else { return .failure(Refusal(text: "device must be a device name (letters, digits, '.', '_', '-')")) }
            filter.device = device
        }
        if let mode = q["mode"].map(String.init), !mode.isEmpty {
            guard HistoryFilter.modes.contains(mode) else {
                return .failure(Refusal(text: "mode must be one of \(HistoryFilter.modes.joined(separator: ", "))"))
            }
            filter.mode = mode
        }
        return .success(filter)
    }

    private static func read<T: Sendable>(
        _ open: @escaping ViewStoreOpener, _ body: @escaping @Sendable (any ViewStore) throws -> T
    ) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive {
            let store = try open()
            defer { store.close() }
            return try body(store)
        }
    }
}

/// A history tile's counts as a picture: the lines (every pixel with a track, two pixels wide, stronger where
/// more tracks pass), a density heat map (blue where a track passed once, through yellow to red where most did), or
/// where I've been (every cell of 8 by 8 pixels that a track crossed, filled: the ground covered, at any zoom).
enum HistoryPicture {
    /// How the counts are drawn (`?style=`).
    enum Style: String, Sendable {
        case lines, heat, visited
    }

    /// A tile without a track: fully transparent.
    static let empty: [UInt8] =
        (try? PNGEncoder(width: 256, height: 256).encode(rgba: [UInt8](repeating: 0, count: 256 * 256 * 4))) ?? []

    /// The side of a "where I've been" cell, in pixels: 150 m at zoom 13, 40 km at zoom 5. Cells align with the tile's
    /// edges (256 is a multiple), so neighbouring tiles meet without a seam.
    static let cell = 8

    static func png(_ raster: HistoryRaster, style: Style) throws -> [UInt8] {
        let size = HistoryRaster.size
        var pixels = [UInt8](repeating: 0, count: size * size * 4)
        let counts = raster.counts
        if style == .visited {
            for cy in stride(from: 0, to: size, by: cell) {
                for cx in stride(from: 0, to: size, by: cell) {
                    let crossed = (cy..<cy + cell).contains { y in
                        counts[(y * size + cx)..<(y * size + cx + cell)].contains { $0 > 0 }
                    }
                    guard crossed else { continue }
                    for y in cy..<cy + cell {
                        for x in cx..<cx + cell {
                            let i = 4 * (y * size + x)
                            // Teal, half opaque: the basemap shows through the ground covered.
                            (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3]) = (0, 150, 136, 150)
                        }
                    }
                }
            }
            return try PNGEncoder(width: size, height: size).encode(rgba: pixels)
        }
        let heat = style == .heat
        let top = log(1 + Double(counts.max() ?? 1))
        for y in 0..<size {
            for x in 0..<size {
                let i = y * size + x
                // Two pixels wide: a pixel also shows its left and upper neighbour's track.
                var c = counts[i]
                if !heat {
                    if x > 0 { c = max(c, counts[i - 1]) }
                    if y > 0 { c = max(c, counts[i - size]) }
                }
                guard c > 0 else { continue }
                let t = top > 0 ? log(1 + Double(c)) / top : 1
                let rgba: (Double, Double, Double, Double) =
                    heat
                    ? (t < 0.5 ? (510 * t, 510 * t, 255 * (1 - 2 * t), 120 + 135 * t) : (255, 510 * (1 - t), 0, 255))
                    : (200, 20 + 40 * (1 - t), 60, 170 + 85 * t)
                pixels[4 * i] = UInt8(min(255, rgba.0))
                pixels[4 * i + 1] = UInt8(min(255, rgba.1))
                pixels[4 * i + 2] = UInt8(min(255, rgba.2))
                pixels[4 * i + 3] = UInt8(min(255, rgba.3))
            }
        }
        return try PNGEncoder(width: size, height: size).encode(rgba: pixels)
    }
}
