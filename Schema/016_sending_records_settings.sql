-- Migration 16: Overland's records on the wire (`record --send`, `upload`) and its remote configuration.

-- Records that are not track points (the automatic pause and its resume, visits) that one destination (as in
-- Uploads) confirmed, so each goes once per destination: 'event:KEY' (a TrackingEvents row; 'event:KEY:exit' is
-- the exited_pause_region sent before a resume), 'visit:KEY:arrival' and 'visit:KEY:departure' (a Visits row),
-- 'trip:SESSION' (a finished trip's record).
CREATE TABLE SentRecords (
    Session     TEXT NOT NULL REFERENCES Sessions (ID) ON DELETE CASCADE,
    Destination TEXT NOT NULL,
    Record      TEXT NOT NULL,
    PRIMARY KEY (Session, Destination, Record)
) STRICT;

-- Settings a server sent in `set` (Overland's remote configuration), kept for the next run to the same
-- destination (as in Uploads). Section 'top' holds send_interval and trip_mode; 'main' and 'trip' their keys.
-- Values as the server sent them, as text ('50m', 'true', '200').
CREATE TABLE ServerSettings (
    Destination TEXT    NOT NULL,
    Section     TEXT    NOT NULL CONSTRAINT server_setting_section_known CHECK (Section IN ('top', 'main', 'trip')),
    Name        TEXT    NOT NULL,
    Value       TEXT    NOT NULL,
    ReceivedAt  INTEGER NOT NULL,
    PRIMARY KEY (Destination, Section, Name)
) STRICT;
