// SPDX-License-Identifier: MIT

/// Writes sessions in a format, through that format's `TrackWriter`.
public struct Exporter {
    /// The format written.
    public var format: ExportFormat
    /// Overland batch size (50...1000).
    public var batchSize = 200
    /// Overland `device_id` and OwnTracks `user/device`.
    public var deviceID: String?

    /// An exporter to `format`, with the default batch size and no device id.
    public init(format: ExportFormat) { self.format = format }

    /// Writes to `path` ("-" for stdout). Files appear whole or not at all. Overland batches beyond the first go
    /// to numbered files (`track-0002.json`, ...) or, on stdout, one batch per line.
    /// - Returns: the paths written.
    @discardableResult
    public func export(_ sessions: [SessionExport], to path: String) throws -> [String] {
        let outputs = TrackOutputs(path: path)
        try format.writer(batchSize: batchSize, deviceID: deviceID).write(sessions, to: outputs)
        return path == "-" ? ["-"] : outputs.paths
    }
}
