// SPDX-License-Identifier: MIT
import Foundation
import GPSLogStore
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix

/// The map's tiles as the session page hands them to Leaflet: a URL template (a tile server, or serve's own
/// `/tiles/` for an MBTiles file), its credit as safe HTML, and for a file its zooms and bounds.
struct MapTiles: Sendable, Equatable {
    var template: String
    var attribution: String
    var minZoom: Int?
    var maxZoom: Int?
    /// West, south, east, north.
    var bounds: [Double]?
    /// Tiles from serve's own file: a missing one is a hole in the file, not a server that is down.
    var fromFile = false

    /// The `data-` attributes of the page's body that app.js reads.
    var attributes: String {
        var out = #" data-tiles="\#(Pages.escape(template))" data-attribution="\#(Pages.escape(attribution))""#
        if let minZoom { out += #" data-tiles-minzoom="\#(minZoom)""# }
        if let maxZoom { out += #" data-tiles-maxzoom="\#(maxZoom)""# }
        if let bounds { out += #" data-tiles-bounds="\#(bounds.map { String($0) }.joined(separator: ","))""# }
        if fromFile { out += #" data-tiles-file="true""# }
        return out
    }

    /// An MBTiles file's tiles, served at `/tiles/{z}/{x}/{y}`, credited with `attribution` (HTML, the user's own
    /// option) or else the file's, which comes from outside and is cut down to text and links.
    init(file: MBTilesFile, attribution: String?) {
        let m = file.metadata
        template = Basemap.route
        self.attribution = attribution ?? m.attribution.map(Basemap.sanitizedAttribution) ?? ""
        (minZoom, maxZoom, bounds, fromFile) = (m.minZoom, m.maxZoom, m.bounds, true)
    }

    init(template: String, attribution: String) {
        self.template = template
        self.attribution = attribution
    }
}

/// `GET /tiles/{z}/{x}/{y}`: a tile of the MBTiles file given as `serve --tiles FILE`.
///
/// Behind the view's token like the pages: a file's tiles show the region its user travels in, and may be a map
/// they may not pass on; the page's own tile requests carry its login cookie, so this costs the map nothing.
enum Basemap {
    static let route = "/tiles/{z}/{x}/{y}"

    /// Registers `/tiles/Z/X/Y` for the logged-in, and `/s/TOKEN/tiles/Z/X/Y` for a share link's page.
    static func register<Context: RequestContext>(file: MBTilesFile, logins: Logins, on router: Router<Context>) {
        let type = file.metadata.format.contentType
        router.get("/tiles/:z/:x/:y") { request, context in
            guard try await logins.viewer(request) != nil else { return Response(status: .unauthorized) }
            return try await tile(file, type: type, context)
        }
        router.get("/s/:share/tiles/:z/:x/:y") { request, context in
            let share = try context.parameters.require("share")
            guard try await logins.viewer(request, share: share) != nil else { return Response(status: .unauthorized) }
            return try await tile(file, type: type, context)
        }
    }

    /// A tile of `file` at the route's Z/X/Y.
    static func tile<Context: RequestContext>(_ file: MBTilesFile, type: String, _ context: Context) async throws
        -> Response
    {
        guard
            let (z, x, y) = address(
                context.parameters.get("z"), context.parameters.get("x"), context.parameters.get("y"))
        else {
            return Response(
                status: .badRequest, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(
                    byteBuffer: ByteBuffer(
                        string:
                            "a tile is /tiles/Z/X/Y: Z from 0 to \(MBTilesFile.maxZoom), X and Y from 0 to 2^Z-1\n"
                    )))
        }
        // Off the event loop: a read from a slow card blocks.
        let bytes = try await NIOThreadPool.singleton.runIfActive { try file.tile(z: z, x: x, y: y) }
        // Kept by the browser a day (a missing one an hour): the file does not change while serve runs.
        // Private: behind the token.
        guard let bytes else {
            return Response(status: .notFound, headers: [.cacheControl: "private, max-age=3600"])
        }
        return Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "private, max-age=86400"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// Z, X and Y as bounded integers (digits only, Z at most `MBTilesFile.maxZoom`, X and Y below 2^Z); nil
    /// otherwise.
    static func address(_ z: String?, _ x: String?, _ y: String?) -> (Int, Int, Int)? {
        func number(_ text: String?) -> Int? {
            guard let text, (1...10).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) })
            else { return nil }
            return Int(text)
        }
        guard let z = number(z), z <= MBTilesFile.maxZoom, let x = number(x), let y = number(y), x < 1 << z,
            y < 1 << z
        else { return nil }
        return (z, x, y)
    }

    /// An MBTiles attribution (HTML by the specification, but from a file) as safe HTML: its text, and its links
    /// to http(s) addresses; every other tag dropped (a script's or a style's content with it), and the usual entities
    /// read as the characters they stand for.
    static func sanitizedAttribution(_ html: String) -> String {
        var out = ""
        var linkOpen = false
        var rest = Substring(html.prefix(2000))
        while let open = rest.firstIndex(of: "<") {
            out += Pages.escape(decodedEntities(rest[..<open]))
            guard let close = rest[open...].firstIndex(of: ">") else {
                rest = rest[open...]
                break
            }
            let tag = rest[rest.index(after: open)..<close]
            rest = rest[rest.index(after: close)...]
            let trimmed = tag.drop { $0.isWhitespace }
            let closing = trimmed.hasPrefix("/")
            let name = (closing ? trimmed.dropFirst() : trimmed).prefix { $0.isLetter || $0.isNumber }.lowercased()
            if !closing, name == "script" || name == "style" {
                // Their content is code, not credit: dropped with them.
                let end = rest.range(of: "</\(name)", options: .caseInsensitive)
                rest = end.map { rest[$0.lowerBound...] } ?? rest[rest.endIndex...]
            } else if name == "a", !closing, !linkOpen, let href = attribute("href", in: tag),
                href.lowercased().hasPrefix("https://") || href.lowercased().hasPrefix("http://")
            {
                out += #"<a href="\#(Pages.escape(href))" rel="noopener noreferrer">"#
                linkOpen = true
            } else if name == "a", closing, linkOpen {
                out += "</a>"
                linkOpen = false
            }
        }
        out += Pages.escape(decodedEntities(rest))
        if linkOpen { out += "</a>" }
        return out
    }

    /// The value of `name="..."` (or single quotes) in a tag's text, entities decoded.
    static func attribute(_ name: String, in tag: Substring) -> String? {
        for quote in ["\"", "'"] {
            for form in ["\(name)=\(quote)", "\(name) = \(quote)"] {
                guard let start = tag.range(of: form, options: .caseInsensitive) else { continue }
                let value = tag[start.upperBound...].prefix { String($0) != quote }
                return decodedEntities(value).trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    static let namedEntities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "copy": "©", "nbsp": "\u{A0}", "reg": "®",
        "middot": "·", "ndash": "–", "mdash": "—",
    ]

    /// `&copy;`, `&#169;` and `&#xA9;` as `©`; anything else stays as it was (and is escaped later).
    static func decodedEntities(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var out = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            let body = after.prefix { $0 != ";" }
            if body.count < after.count, body.count <= 10, let character = entity(body) {
                out += character
                rest = after.dropFirst(body.count + 1)
            } else {
                out += "&"
                rest = after
            }
        }
        return out + rest
    }

    /// The character an entity's name (`copy`, `#169`, `#xA9`) stands for; nil for an unknown one or a control.
    static func entity(_ body: Substring) -> String? {
        let code =
            body.hasPrefix("#x") || body.hasPrefix("#X")
            ? UInt32(body.dropFirst(2), radix: 16) : body.hasPrefix("#") ? UInt32(body.dropFirst()) : nil
        if let code {
            guard code >= 0x20, code != 0x7F, let scalar = Unicode.Scalar(code) else { return nil }
            return String(scalar)
        }
        return namedEntities[String(body)]
    }
}
