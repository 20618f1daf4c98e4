// SPDX-License-Identifier: MIT

/// A format's writer: sessions in, files out. Each format gpslog writes has one (`ExportFormat.writer`), and the
/// `Exporter` knows nothing else about formats.
public protocol TrackWriter {
    /// Writes `sessions`, opening each output it fills from `outputs` and committing it once it is whole. Formats
    /// of one file open output 0 only; Overland opens one output per batch.
    func write(_ sessions: [SessionExport], to outputs: TrackOutputs) throws
}
