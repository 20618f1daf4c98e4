-- gpslog schema, migration 1: the Sessions and Entries tables, after GPS Log.
--
-- Column names are GPS Log's, so a GPS Log user recognises them; the types and constraints are ours.
-- Times: INTEGER milliseconds since 1970-01-01T00:00:00Z (UTC). Readable with
--   strftime('%Y-%m-%dT%H:%M:%fZ', TimeStamp / 1000.0, 'unixepoch').
-- Distances and accuracies in metres, speeds in m/s, angles in degrees true [0, 360).
-- Absent values are NULL (never GPS Log's '-1.0' or 'n/a').

CREATE TABLE Sessions (
    Key       INTEGER PRIMARY KEY,
    -- The session's UUID, lower-case text.
    ID        TEXT    NOT NULL UNIQUE CONSTRAINT session_id_is_uuid CHECK (length(ID) = 36),
    StartTime INTEGER NOT NULL,
    -- NULL while the session is recording.
    EndTime   INTEGER CONSTRAINT session_ends_after_start CHECK (EndTime IS NULL OR EndTime >= StartTime),
    Name      TEXT    NOT NULL CONSTRAINT session_name_not_empty CHECK (length(trim(Name)) > 0)
) STRICT;

CREATE TABLE Entries (
    Key                INTEGER PRIMARY KEY,
    Session            TEXT    NOT NULL REFERENCES Sessions(ID) ON DELETE CASCADE ON UPDATE CASCADE,
    Latitude           REAL    NOT NULL CONSTRAINT latitude_in_range CHECK (Latitude BETWEEN -90 AND 90),
    Longitude          REAL    NOT NULL CONSTRAINT longitude_in_range CHECK (Longitude BETWEEN -180 AND 180),
    -- Metres above mean sea level.
    Altitude           REAL,
    HorizontalAccuracy REAL    CONSTRAINT horizontal_accuracy_not_negative CHECK (HorizontalAccuracy >= 0),
    VerticalAccuracy   REAL    CONSTRAINT vertical_accuracy_not_negative CHECK (VerticalAccuracy >= 0),
    TimeStamp          INTEGER NOT NULL,
    Speed              REAL    CONSTRAINT speed_not_negative CHECK (Speed >= 0),
    -- Course over ground.
    Course             REAL    CONSTRAINT course_in_range CHECK (Course >= 0 AND Course < 360),
    -- Filled in later by the reverse geocoder.
    Address            TEXT,
    Marked             INTEGER NOT NULL DEFAULT 0 CONSTRAINT marked_is_flag CHECK (Marked IN (0, 1)),
    EntryID            TEXT    NOT NULL UNIQUE CONSTRAINT entry_id_is_uuid CHECK (length(EntryID) = 36),
    -- How many accepted fixes fell at this same place in a row.
    InstanceCount      INTEGER NOT NULL DEFAULT 1 CONSTRAINT instance_count_positive CHECK (InstanceCount >= 1),
    -- Heading-change rows: the new heading (true), and when it was read.
    Heading            REAL    CONSTRAINT heading_in_range CHECK (Heading >= 0 AND Heading < 360),
    IsHeadingChanged   INTEGER NOT NULL DEFAULT 0 CONSTRAINT heading_changed_is_flag CHECK (IsHeadingChanged IN (0, 1)),
    HeadingTimeStamp   INTEGER,
    CONSTRAINT heading_change_has_heading
        CHECK (IsHeadingChanged = 0 OR (Heading IS NOT NULL AND HeadingTimeStamp IS NOT NULL))
) STRICT;

-- Streams a session in time order, and serves the per-session counts and summaries.
CREATE INDEX Entries_Session_TimeStamp ON Entries(Session, TimeStamp);
