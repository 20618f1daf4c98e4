// SPDX-License-Identifier: MIT

/// Which of an entry's fields a reader fills (the store's cursors, a session source's `forEachEntry`).
public enum EntryFields: Sendable {
    /// Every column.
    case all
    /// What a drawn track needs (GPX, GeoJSON and KML track points): key, position, altitude, time, speed, course,
    /// the flags (segment starts among them), the instance count, satellites, dilutions and fix mode. The id is empty and every other field
    /// nil: half the columns, and no id string made per row (a 1M-entry GPX export reads its rows 30 % faster).
    case track
    /// What a simplification needs: key, position, time and the flags (marked, heading change, segment start); every
    /// other field nil, the id empty. A third of the columns.
    case position
}
