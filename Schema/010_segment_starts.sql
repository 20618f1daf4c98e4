-- Migration 10: where a track's new segment starts although little time passed (a receiver unplugged for a
-- moment, gpsd lost and reached again, a GPX trkseg read in): exports start a new segment at such a row, as they
-- do after a long gap in time (GPX trkseg, GeoJSON MultiLineString, KML MultiGeometry).
ALTER TABLE Entries ADD COLUMN StartsSegment INTEGER NOT NULL DEFAULT 0
    CONSTRAINT starts_segment_is_flag CHECK (StartsSegment IN (0, 1));
