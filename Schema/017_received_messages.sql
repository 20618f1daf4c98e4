-- Migration 17: what `serve` receives from OwnTracks besides locations: transitions made by the phone's own regions,
-- the waypoints (regions) each device published, and each device's card and last will.

-- Transitions, rebuilt as SQLite documents for a change ALTER TABLE cannot make
-- (https://www.sqlite.org/lang_altertable.html#otheralter: create the new table, copy, drop the old one, rename,
-- make the index again). No table refers to Transitions, so foreign keys may stay on while it is dropped.
-- What changes: a received transition names a region of the phone's, whose centre and radius come only with that
-- region's waypoint message (NULL until one came), and which may have no rid; and OwnTracks' `t` is kept.
CREATE TABLE Transitions_017 (
    Key                INTEGER PRIMARY KEY,
    Session            TEXT    NOT NULL REFERENCES Sessions (ID) ON DELETE CASCADE,
    RegionName         TEXT    NOT NULL,
    -- OwnTracks' rid; NULL: the phone sent none.
    RegionID           TEXT,
    -- Milliseconds; the region's creation (a transition's wtst).
    RegionCreatedAt    INTEGER NOT NULL,
    -- NULL: not known (a received transition whose region's waypoint has not been received).
    RegionLatitude     REAL,
    RegionLongitude    REAL,
    RegionRadius       REAL,
    Event              TEXT    NOT NULL CONSTRAINT transition_event_known CHECK (Event IN ('enter', 'leave')),
    TimeStamp          INTEGER NOT NULL,
    Latitude           REAL    NOT NULL CONSTRAINT transition_latitude_in_range CHECK (Latitude BETWEEN -90 AND 90),
    Longitude          REAL    NOT NULL CONSTRAINT transition_longitude_in_range CHECK (Longitude BETWEEN -180 AND 180),
    HorizontalAccuracy REAL    CONSTRAINT transition_accuracy_not_negative CHECK (HorizontalAccuracy >= 0),
    -- OwnTracks' t: 'c' a circular region (gpslog's own regions: the default), 'b' a beacon, 'l' a location; NULL:
    -- a received transition that did not say.
    ReportTrigger      TEXT    DEFAULT 'c'
        CONSTRAINT transition_trigger_known CHECK (ReportTrigger IN ('c', 'b', 'l'))
) STRICT;
INSERT INTO Transitions_017 (
    Key, Session, RegionName, RegionID, RegionCreatedAt, RegionLatitude, RegionLongitude, RegionRadius, Event,
    TimeStamp, Latitude, Longitude, HorizontalAccuracy, ReportTrigger)
SELECT
    Key, Session, RegionName, RegionID, RegionCreatedAt, RegionLatitude, RegionLongitude, RegionRadius, Event,
    TimeStamp, Latitude, Longitude, HorizontalAccuracy, 'c'
FROM Transitions;
DROP TABLE Transitions;
ALTER TABLE Transitions_017 RENAME TO Transitions;
CREATE INDEX Transitions_Session_TimeStamp ON Transitions (Session, TimeStamp);

-- The waypoints (OwnTracks' regions, `_type: waypoint` or a `waypoints` list) a device published, per device: not the
-- regions gpslog monitors (`Regions`). A waypoint is known by its rid, or without one by its creation time (OwnTracks'
-- tst, which its transitions carry as wtst); a later tst replaces an earlier one.
CREATE TABLE ReceivedWaypoints (
    Key         INTEGER PRIMARY KEY,
    -- As Sessions.Receiver: 'owntracks:USER/DEVICE'.
    Device      TEXT    NOT NULL,
    RegionID    TEXT,
    Description TEXT    NOT NULL,
    -- NULL for a beacon region, which has no centre.
    Latitude    REAL    CONSTRAINT received_waypoint_latitude_in_range CHECK (Latitude BETWEEN -90 AND 90),
    Longitude   REAL    CONSTRAINT received_waypoint_longitude_in_range CHECK (Longitude BETWEEN -180 AND 180),
    -- Metres; NULL or 0: a place, not a region.
    Radius      REAL    CONSTRAINT received_waypoint_radius_not_negative CHECK (Radius >= 0),
    -- Milliseconds: OwnTracks' tst, when the waypoint was made.
    CreatedAt   INTEGER NOT NULL,
    ReceivedAt  INTEGER NOT NULL,
    CONSTRAINT received_waypoint_position_whole CHECK ((Latitude IS NULL) = (Longitude IS NULL))
) STRICT;
CREATE UNIQUE INDEX ReceivedWaypoints_Device_RegionID ON ReceivedWaypoints (Device, RegionID)
    WHERE RegionID IS NOT NULL;
CREATE UNIQUE INDEX ReceivedWaypoints_Device_CreatedAt ON ReceivedWaypoints (Device, CreatedAt)
    WHERE RegionID IS NULL;

-- What a device said about itself: its latest card (`_type: card`: a name, a face, a tracker id) and its latest last
-- will (`_type: lwt`, published by the broker when the device's connection was lost).
CREATE TABLE ReceivedDevices (
    -- As Sessions.Receiver: 'owntracks:USER/DEVICE'.
    Device            TEXT    PRIMARY KEY,
    CardName          TEXT,
    -- The decoded image (PNG or JPEG), at most 256 KiB.
    CardFace          BLOB    CONSTRAINT received_card_face_bounded CHECK (length(CardFace) <= 262144),
    CardTrackerID     TEXT,
    -- Milliseconds.
    CardReceivedAt    INTEGER,
    -- Milliseconds: when the last lwt arrived, and its tst (when the connection it ends was made).
    LastWillAt        INTEGER,
    LastWillConnected INTEGER
) STRICT;
