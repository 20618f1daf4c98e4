-- Migration 13: trips inside a recording (`gpslog trip start` / `trip stop`, Overland's Start/Stop on its tracker
-- screen). A trip is a session of its own, with its mode; the recording goes on in a new session after it.
ALTER TABLE Sessions ADD COLUMN Trip INTEGER NOT NULL DEFAULT 0 CONSTRAINT trip_is_flag CHECK (Trip IN (0, 1));
-- Overland's stopped_automatically: the automatic pause ended the trip, not `trip stop`. NULL for other sessions
-- and for trips still running.
ALTER TABLE Sessions ADD COLUMN StoppedAutomatically INTEGER
    CONSTRAINT stopped_automatically_is_flag CHECK (StoppedAutomatically IN (0, 1));
