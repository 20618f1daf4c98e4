-- Migration 24: each session's figures per UTC day, kept as its entries are written, cleaned or deleted, so that
-- `gpslog stats` and the web view's /stats read a few rows per day instead of every entry. Kept like
-- SessionSummaries (019), in Swift and in the same transaction (Store+DaySummaries.swift): a session's day rows are
-- known while its SessionSummaries row is; a session counted again (a missing summary row, `gpslog check`) gets its
-- day rows counted again with it. Days are whole UTC days since 1970-01-01 (TimeStamp in ms, divided and floored).
--
-- A step between two consecutive track points (Marked = 0 AND IsHeadingChanged = 0, in (TimeStamp, Key) order)
-- belongs to the day of its later point, so the days' lengths add up to the session's LengthNanometres exactly.
CREATE TABLE DaySummaries (
    -- Sessions.Key.
    Session            INTEGER NOT NULL,
    Day                INTEGER NOT NULL,
    -- Track points on the day.
    TrackPoints        INTEGER NOT NULL CONSTRAINT day_track_points_positive CHECK (TrackPoints > 0),
    -- The steps ending on the day, each rounded to the nanometre, summed (as SessionSummaries.LengthNanometres).
    LengthNanometres   INTEGER NOT NULL CONSTRAINT day_length_not_negative CHECK (LengthNanometres >= 0),
    -- The time of the steps ending on the day that moved at 0.7 m/s or more and lasted at most 5 minutes.
    MovingMilliseconds INTEGER NOT NULL CONSTRAINT day_moving_not_negative CHECK (MovingMilliseconds >= 0),
    PRIMARY KEY (Session, Day)
) STRICT, WITHOUT ROWID;
CREATE INDEX DaySummaries_Day ON DaySummaries (Day);

-- Where the track was on the ground each day: cells of 0.02 degrees (about 2 km) holding a track point reached at
-- under 300 km/h (or a session's first point), so a flight over a country does not count it as visited. Cell =
-- row * 18000 + column, row = floor((Latitude + 90) / 0.02), column = floor((Longitude + 180) / 0.02).
CREATE TABLE DayCells (
    Session INTEGER NOT NULL,
    Day     INTEGER NOT NULL,
    Cell    INTEGER NOT NULL,
    PRIMARY KEY (Session, Day, Cell)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER Sessions_day_summaries_delete AFTER DELETE ON Sessions BEGIN
    DELETE FROM DaySummaries WHERE Session = OLD.Key;
    DELETE FROM DayCells WHERE Session = OLD.Key;
END;

-- The sessions of older versions have no day rows: their figures are counted again (with their days) after the
-- upgrade.
DELETE FROM SessionSummaries;
