-- Migration 19: each session's figures, kept as its entries are written, so `sessions` and `show` read one row per
-- session instead of every entry (10-13 s for `sessions` on 10M entries before). The Store updates a session's row
-- in the same transaction as the entries it writes (Store+KeptSummaries.swift); a session without a row is not
-- known (written outside the Store, or this migration's older sessions) and is counted again, from its entries, the
-- next time it is read. `gpslog check` recounts every session and repairs what differs.
--
-- The same figures as `gpslog show`: the track is the rows with Marked = 0 AND IsHeadingChanged = 0; the bounding box
-- and the highest speed cover the track and the marks (IsHeadingChanged = 0).
CREATE TABLE SessionSummaries (
    -- Sessions.Key.
    Session          INTEGER PRIMARY KEY,
    -- Every row; track points; marks; heading changes.
    EntryCount       INTEGER NOT NULL CONSTRAINT summary_entries_not_negative CHECK (EntryCount >= 0),
    TrackPoints      INTEGER NOT NULL CONSTRAINT summary_track_points_not_negative CHECK (TrackPoints >= 0),
    Marks            INTEGER NOT NULL CONSTRAINT summary_marks_not_negative CHECK (Marks >= 0),
    HeadingChanges   INTEGER NOT NULL CONSTRAINT summary_heading_changes_not_negative CHECK (HeadingChanges >= 0),
    -- The sum of the track points' InstanceCount: the fixes the track stands for.
    Fixes            INTEGER NOT NULL CONSTRAINT summary_fixes_not_negative CHECK (Fixes >= 0),
    -- The first and last track point's TimeStamp.
    FirstTime        INTEGER,
    LastTime         INTEGER,
    MinLatitude      REAL,
    MaxLatitude      REAL,
    MinLongitude     REAL,
    MaxLongitude     REAL,
    MaxSpeed         REAL,
    -- The track's length: the great-circle steps between consecutive track points in (TimeStamp, Key) order, each
    -- rounded to the nanometre, summed. Whole numbers add up the same in any order, so a point written late (into
    -- the middle of the track) or a row deleted keeps the sum exactly equal to a recount.
    LengthNanometres INTEGER NOT NULL CONSTRAINT summary_length_not_negative CHECK (LengthNanometres >= 0),
    -- The track's last point in (TimeStamp, Key) order: where the next appended point's step starts.
    LastKey          INTEGER,
    LastLatitude     REAL,
    LastLongitude    REAL
) STRICT;

-- A new session has no entries: its figures are known at once (for sessions made outside the Store too).
CREATE TRIGGER Sessions_summary_insert AFTER INSERT ON Sessions BEGIN
    INSERT OR REPLACE INTO SessionSummaries (Session, EntryCount, TrackPoints, Marks, HeadingChanges, Fixes,
        LengthNanometres)
    VALUES (NEW.Key, 0, 0, 0, 0, 0, 0);
END;
CREATE TRIGGER Sessions_summary_delete AFTER DELETE ON Sessions BEGIN
    DELETE FROM SessionSummaries WHERE Session = OLD.Key;
END;
