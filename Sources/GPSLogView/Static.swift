// SPDX-License-Identifier: MIT
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The files the pages load: gpslog's own (embedded at build: the page glue, the style, the icon) and the
/// libraries from Debian's libjs packages, read from where Debian installs them (never a CDN; never committed).
enum Static {
    static func contentType(_ name: String) -> String {
        switch (name as NSString).pathExtension {
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "map", "json": "application/json"
        default: "application/octet-stream"
        }
    }

    /// `/static/app.js`, `/static/style.css`, `/static/favicon.svg`.
    static func asset(_ name: String) -> Response {
        guard let file = EmbeddedResources.files.first(where: { ($0.name as NSString).lastPathComponent == name })
        else {
            return Response(status: .notFound)
        }
        return Response(
            status: .ok, headers: [.contentType: contentType(name), .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(string: file.contents)))
    }

    /// `/lib/leaflet/leaflet.js` from `/usr/share/javascript/leaflet/leaflet.js`: only names of letters, digits,
    /// dots, dashes and underscores, no `..`, inside the library's folder. A missing package says which to install.
    static func library(_ library: String, path: String, root: String) -> Response {
        let prefix = "/lib/\(library)/"
        let relative = String(path.dropFirst(prefix.count))
        let allowed = relative.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || "._-/".unicodeScalars.contains($0)
        }
        guard path.hasPrefix(prefix), allowed, !relative.contains(".."), !relative.hasPrefix("/"),
            relative.count < 200
        else { return Response(status: .notFound) }
        let file = "\(root)/\(library)/\(relative)"
        guard let bytes = FileManager.default.contents(atPath: file) else {
            let package = "libjs-\(library)"
            let note =
                FileManager.default.fileExists(atPath: "\(root)/\(library)")
                ? "no such file" : "install Debian's \(package) (sudo apt-get install \(package))"
            return Response(
                status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "\(library): \(note)\n")))
        }
        return Response(
            status: .ok, headers: [.contentType: contentType(file), .cacheControl: "max-age=86400"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
