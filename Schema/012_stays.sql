-- Migration 12: Overland's automatic pause and visits (`record --pause-when-stopped`, `--visits`).

-- What a recording did besides recording entries, under Overland's record names: the automatic pause
-- ('paused_location_updates') and the resume at the geofence ('resumed_location_updates'), at the fix that caused
-- it.
CREATE TABLE TrackingEvents (
    Key       INTEGER PRIMARY KEY,
    Session   TEXT    NOT NULL REFERENCES Sessions (ID) ON DELETE CASCADE,
    Action    TEXT    NOT NULL CONSTRAINT tracking_action_known
        CHECK (Action IN ('paused_location_updates', 'resumed_location_updates')),
    TimeStamp INTEGER NOT NULL,
    Latitude  REAL    NOT NULL CONSTRAINT event_latitude_in_range CHECK (Latitude BETWEEN -90 AND 90),
    Longitude REAL    NOT NULL CONSTRAINT event_longitude_in_range CHECK (Longitude BETWEEN -180 AND 180)
) STRICT;
CREATE INDEX TrackingEvents_Session_TimeStamp ON TrackingEvents (Session, TimeStamp);

-- Places the receiver stayed at for three minutes or more: the mean of the stay's fixes, its spread (or the
-- receiver's accuracy, when worse), the stay's first fix, and the first fix outside it (NULL while still there).
CREATE TABLE Visits (
    Key                INTEGER PRIMARY KEY,
    Session            TEXT    NOT NULL REFERENCES Sessions (ID) ON DELETE CASCADE,
    Latitude           REAL    NOT NULL CONSTRAINT visit_latitude_in_range CHECK (Latitude BETWEEN -90 AND 90),
    Longitude          REAL    NOT NULL CONSTRAINT visit_longitude_in_range CHECK (Longitude BETWEEN -180 AND 180),
    HorizontalAccuracy REAL    NOT NULL CONSTRAINT visit_accuracy_not_negative CHECK (HorizontalAccuracy >= 0),
    ArrivalTime        INTEGER NOT NULL,
    DepartureTime      INTEGER CONSTRAINT departure_after_arrival
        CHECK (DepartureTime IS NULL OR DepartureTime >= ArrivalTime),
    Address            TEXT
) STRICT;
CREATE INDEX Visits_Session_Arrival ON Visits (Session, ArrivalTime);
