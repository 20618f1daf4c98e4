// SPDX-License-Identifier: MIT
import Foundation
import GPSLogFormats
import GPSLogImportExport
import GPSLogModel
import GPSLogPipeline

extension FuzzTarget {
    /// The name payload refusals must carry (a request body has no file).
    static let payloadSource = "fuzz-body"

    /// An Overland batch body as `import` reads it (`OverlandPayload`) and as `serve` does (`ReceivedPayload`, then
    /// the checked body): both give the same entries, or both refuse naming the source.
    static func overland(_ input: UnsafeRawBufferPointer) {
        checkOverland(Array(input), source: payloadSource)
    }

    static func checkOverland(_ bytes: [UInt8], source: String) {
        let data = Data(bytes)
        let imported = Result { try OverlandPayload(data, source: source).entries }
        switch imported {
        case .success(let entries):
            for entry in entries {
                FuzzInvariant.accepted(entry, from: "OverlandPayload", plausibleTime: true, plausiblePosition: true)
            }
        case .failure(let error): FuzzInvariant.refusal(error, from: "OverlandPayload", naming: source)
        }
        let served = Result { () throws -> [Entry]? in
            guard case .overland(let body) = try ReceivedPayload(data, source: source) else { return nil }
            return try OverlandPayload(body: body, source: source).entries
        }
        switch served {
        case .success(nil): break  // serve takes it for OwnTracks or neither
        case .success(let entries?):
            // What serve takes for an Overland batch, import reads the same way.
            FuzzInvariant.check(
                entries == (try? imported.get()), "serve accepted an Overland body import reads otherwise")
        case .failure(let error):
            FuzzInvariant.refusal(error, from: "ReceivedPayload", naming: source)
            FuzzInvariant.check((try? imported.get()) == nil, "serve refused an Overland body import accepts")
        }
    }

    /// One OwnTracks message as `serve` reads it (`ReceivedPayload`, then `OwnTracksMessage.location`; and every type
    /// it stores, `checkReceived`) and as `import` reads a line (`OwnTracksMessage.location` on the bytes): the same
    /// entry, or a refusal naming the line.
    static func ownTracks(_ input: UnsafeRawBufferPointer) {
        let data = Data(input)
        let imported = Result { try OwnTracksMessage.location(data, source: payloadSource, line: 7) }
        switch imported {
        case .success(let entry?):
            FuzzInvariant.accepted(entry, from: "OwnTracksMessage", plausibleTime: true, plausiblePosition: true)
        case .success(nil): break  // not a location
        case .failure(let error): FuzzInvariant.refusal(error, from: "OwnTracksMessage", naming: payloadSource + ":7")
        }
        // What serve stores of every message type (a location the same as above).
        checkReceived(data, imported: try? imported.get())
        let served = Result { () throws -> Entry?? in
            guard case .ownTracks(let body) = try ReceivedPayload(data, source: payloadSource) else { return nil }
            return .some(try OwnTracksMessage.location(body, source: payloadSource, line: 7))
        }
        switch served {
        case .success(nil): break  // serve takes it for Overland or neither
        case .success(let entry?):
            FuzzInvariant.check(
                entry == (try? imported.get()), "serve read an OwnTracks message import reads otherwise")
        case .failure(let error):
            FuzzInvariant.refusal(error, from: "ReceivedPayload", naming: payloadSource)
            // A body with a "locations" key is an Overland batch to serve, refused as one; import reads it as OwnTracks
            // only as a line of a file it already knows to be OwnTracks.
            if case .success(let entry?) = imported, !OverlandProbe.isOverland(data) {
                FuzzInvariant.check(false, "serve refused an OwnTracks message import reads as \(entry)")
            }
        }
    }

    /// OwnTracks JSON lines or a Recorder `.rec` file through `OwnTracksImporter` into the scratch store (line
    /// splitting, the message decoding, the store's rules): every stored entry is plausible, or the refusal names the
    /// file.
    static func rec(_ input: UnsafeRawBufferPointer) {
        checkRec(path: FuzzScratch.write(input, as: "input.rec"))
    }

    static func checkRec(path: String) {
        let store = FuzzScratch.store
        do {
            let results = try OwnTracksImporter().importFile(path, into: store)
            checkImported(results, in: store, from: "OwnTracksImporter", plausible: true)
        } catch {
            FuzzInvariant.refusal(error, from: "OwnTracksImporter", naming: path)
        }
    }
}

/// Whether `serve` takes a body for an Overland batch: an object with a `locations` key, as `ReceivedPayload` decides,
/// with the same decoder.
private struct OverlandProbe: Decodable {
    var hasLocations = false

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        hasLocations = (try? decoder.container(keyedBy: Key.self))?.contains(Key(stringValue: "locations")) ?? false
    }

    static func isOverland(_ data: Data) -> Bool {
        (try? JSONDecoder().decode(OverlandProbe.self, from: data))?.hasLocations ?? false
    }
}

extension FuzzTarget {
    /// A file of regions as `region import` reads it (`RegionFile`: OwnTracks' waypoints export, or GeoJSON polygons
    /// checked with GEOS): every region taken is one the store accepts (a name, a position, a radius in range, a short
    /// id) and a polygon's outline is one the recording can watch, or the file is refused naming it.
    static func waypoints(_ input: UnsafeRawBufferPointer) {
        switch Result(catching: { try RegionFile.read(Data(input), source: payloadSource) }) {
        case .success(let contents):
            for r in contents.regions {
                FuzzInvariant.check(!r.name.trimmedWhitespace.isEmpty, "a region without a name")
                FuzzInvariant.check(r.name.utf8.count <= TextLimit.label * 4, "a region name past its limit")
                FuzzInvariant.check(
                    Geo.isValidPosition(latitude: r.latitude, longitude: r.longitude),
                    "region at \(r.latitude), \(r.longitude)")
                FuzzInvariant.check(r.radius > 0 && r.radius <= 1_000_000, "region radius \(r.radius)")
                FuzzInvariant.check(!r.regionID.isEmpty && r.regionID.count <= 64, "region id '\(r.regionID)'")
                FuzzInvariant.check(r.isPolygon == (contents.kind == .geoJSON), "a \(contents.kind) region's kind")
                if r.isPolygon {
                    let outline = Result { try PolygonOutline(r) }
                    FuzzInvariant.check(
                        (try? outline.get().signedDistance(latitude: r.latitude, longitude: r.longitude)).map {
                            $0 <= 0
                        }
                            == true, "a polygon region's outline cannot be watched, or its point is outside: \(outline)"
                    )
                }
            }
        case .failure(let error): FuzzInvariant.refusal(error, from: "RegionFile", naming: payloadSource)
        }
    }
}
