-- Migration 14: OwnTracks' regions (circular waypoints) and the transitions a recording makes through them.

CREATE TABLE Regions (
    Key       INTEGER PRIMARY KEY,
    -- OwnTracks' desc.
    Name      TEXT    NOT NULL CONSTRAINT region_name_unique UNIQUE
        CONSTRAINT region_name_not_empty CHECK (length(trim(Name)) > 0),
    Latitude  REAL    NOT NULL CONSTRAINT region_latitude_in_range CHECK (Latitude BETWEEN -90 AND 90),
    Longitude REAL    NOT NULL CONSTRAINT region_longitude_in_range CHECK (Longitude BETWEEN -180 AND 180),
    -- Metres.
    Radius    REAL    NOT NULL CONSTRAINT region_radius_positive CHECK (Radius > 0),
    -- OwnTracks' rid.
    RegionID  TEXT    NOT NULL CONSTRAINT region_id_unique UNIQUE,
    -- Milliseconds; OwnTracks' waypoint tst, a transition's wtst.
    CreatedAt INTEGER NOT NULL
) STRICT;

-- A region entered or left at a fix. The region's name, id and creation time are copied, so the history stays
-- when the region is removed.
CREATE TABLE Transitions (
    Key                INTEGER PRIMARY KEY,
    Session            TEXT    NOT NULL REFERENCES Sessions (ID) ON DELETE CASCADE,
    RegionName         TEXT    NOT NULL,
    RegionID           TEXT    NOT NULL,
    RegionCreatedAt    INTEGER NOT NULL,
    RegionLatitude     REAL    NOT NULL,
    RegionLongitude    REAL    NOT NULL,
    RegionRadius       REAL    NOT NULL,
    Event              TEXT    NOT NULL CONSTRAINT transition_event_known CHECK (Event IN ('enter', 'leave')),
    TimeStamp          INTEGER NOT NULL,
    Latitude           REAL    NOT NULL CONSTRAINT transition_latitude_in_range CHECK (Latitude BETWEEN -90 AND 90),
    Longitude          REAL    NOT NULL CONSTRAINT transition_longitude_in_range CHECK (Longitude BETWEEN -180 AND 180),
    HorizontalAccuracy REAL    CONSTRAINT transition_accuracy_not_negative CHECK (HorizontalAccuracy >= 0)
) STRICT;
CREATE INDEX Transitions_Session_TimeStamp ON Transitions (Session, TimeStamp);

-- The regions an entry lies in (OwnTracks' inregions), as a JSON array of names; NULL: none.
ALTER TABLE Entries ADD COLUMN InRegions TEXT
    CONSTRAINT in_regions_is_json_array CHECK (InRegions IS NULL OR json_type(InRegions) = 'array');
