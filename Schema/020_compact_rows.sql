-- Migration 20: compact rows. Entries becomes a view of the same name and columns over EntryRows, where a row names
-- its session by Sessions.Key (an integer) instead of its 36-character UUID, and holds its id in 10 bytes (most ids
-- are version 7 UUIDs made from the entry's own time: the first 48 bits are its TimeStamp) instead of 36 characters
-- with a UNIQUE index: 100 bytes per track point on disk instead of 252. Queries on Entries read as before; the
-- Store reads and writes EntryRows.
--
-- EntryID in EntryRows: a 10-byte BLOB (the id's bytes after its 6 bytes of time, which are the row's TimeStamp), a
-- 16-byte BLOB (any other lower-case UUID), or TEXT (anything else, kept as written). The Entries view shows each as
-- the lower-case UUID text it was written as. The ids stored whole are unique by an index; the others by the Store,
-- which looks an id up by its time (the days each session has entries on, EntryDays, say where to look) before it
-- keeps one from a file, and makes new ones from 74 random bits.
--
-- The copy uses the SQL function gpslog_entry_id(EntryID, TimeStamp), which gpslog registers on its connections
-- (it also counts the rows for the progress bar).

-- Entries whose session row is missing (written by hand with foreign keys off) get one, so the copy loses none.
CREATE TEMP TABLE Orphans AS
    SELECT Session AS Old,
           CASE WHEN length(Session) = 36 THEN Session
                ELSE lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a'
                           || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))) END AS New,
           MIN(TimeStamp) AS First, MAX(TimeStamp) AS Last
    FROM Entries WHERE Session NOT IN (SELECT ID FROM Sessions) GROUP BY Session;
INSERT INTO Sessions (ID, StartTime, EndTime, Name)
    SELECT New, First, Last, 'Recovered entries ' || substr(New, 1, 8) FROM temp.Orphans;
UPDATE Entries SET Session = (SELECT New FROM temp.Orphans WHERE Old = Session)
    WHERE Session IN (SELECT Old FROM temp.Orphans WHERE New <> Old);
-- Counted from their entries at the next read.
DELETE FROM SessionSummaries WHERE Session IN (SELECT Key FROM Sessions WHERE ID IN (SELECT New FROM temp.Orphans));
DROP TABLE temp.Orphans;

CREATE TABLE EntryRows (
    Key                INTEGER PRIMARY KEY,
    -- Sessions.Key.
    SessionKey         INTEGER NOT NULL REFERENCES Sessions (Key) ON DELETE CASCADE,
    Latitude           REAL    NOT NULL CONSTRAINT latitude_in_range CHECK (Latitude BETWEEN -90 AND 90),
    Longitude          REAL    NOT NULL CONSTRAINT longitude_in_range CHECK (Longitude BETWEEN -180 AND 180),
    Altitude           REAL,
    HorizontalAccuracy REAL    CONSTRAINT horizontal_accuracy_not_negative CHECK (HorizontalAccuracy >= 0),
    VerticalAccuracy   REAL    CONSTRAINT vertical_accuracy_not_negative CHECK (VerticalAccuracy >= 0),
    TimeStamp          INTEGER NOT NULL,
    Speed              REAL    CONSTRAINT speed_not_negative CHECK (Speed >= 0),
    Course             REAL    CONSTRAINT course_in_range CHECK (Course >= 0 AND Course < 360),
    Address            TEXT,
    Marked             INTEGER NOT NULL DEFAULT 0 CONSTRAINT marked_is_flag CHECK (Marked IN (0, 1)),
    EntryID            ANY     NOT NULL CONSTRAINT entry_id_is_uuid CHECK (
        (typeof(EntryID) = 'blob' AND length(EntryID) IN (10, 16)) OR (typeof(EntryID) = 'text' AND length(EntryID) = 36)),
    InstanceCount      INTEGER NOT NULL DEFAULT 1 CONSTRAINT instance_count_positive CHECK (InstanceCount >= 1),
    Heading            REAL    CONSTRAINT heading_in_range CHECK (Heading >= 0 AND Heading < 360),
    IsHeadingChanged   INTEGER NOT NULL DEFAULT 0 CONSTRAINT heading_changed_is_flag CHECK (IsHeadingChanged IN (0, 1)),
    HeadingTimeStamp   INTEGER,
    Label              TEXT    CONSTRAINT label_only_on_marks CHECK (Label IS NULL OR Marked = 1),
    Satellites         INTEGER CONSTRAINT satellites_not_negative CHECK (Satellites >= 0),
    HDOP               REAL    CONSTRAINT hdop_not_negative CHECK (HDOP >= 0),
    VDOP               REAL    CONSTRAINT vdop_not_negative CHECK (VDOP >= 0),
    PDOP               REAL    CONSTRAINT pdop_not_negative CHECK (PDOP >= 0),
    FixMode            INTEGER CONSTRAINT fix_mode_known CHECK (FixMode IN (2, 3)),
    SpeedAccuracy      REAL    CONSTRAINT speed_accuracy_not_negative CHECK (SpeedAccuracy >= 0),
    CourseAccuracy     REAL    CONSTRAINT course_accuracy_not_negative CHECK (CourseAccuracy >= 0),
    Motion             TEXT    CONSTRAINT motion_is_json_array CHECK (json_type(Motion) = 'array'),
    BatteryState       TEXT    CONSTRAINT battery_state_known
        CHECK (BatteryState IN ('unknown', 'charging', 'full', 'unplugged')),
    BatteryLevel       REAL    CONSTRAINT battery_level_fraction CHECK (BatteryLevel BETWEEN 0 AND 1),
    DeviceID           TEXT,
    Wifi               TEXT,
    StartsSegment      INTEGER NOT NULL DEFAULT 0 CONSTRAINT starts_segment_is_flag CHECK (StartsSegment IN (0, 1)),
    Monitoring         INTEGER CONSTRAINT monitoring_known CHECK (Monitoring IN (-1, 0, 1, 2)),
    ReportTrigger      TEXT    CONSTRAINT report_trigger_known
        CHECK (ReportTrigger IN ('p', 'c', 'C', 'b', 'r', 'u', 't', 'v')),
    InRegions          TEXT    CONSTRAINT in_regions_is_json_array CHECK (InRegions IS NULL OR json_type(InRegions) = 'array'),
    Tag                TEXT,
    IsPOI              INTEGER NOT NULL DEFAULT 0
        CONSTRAINT poi_is_flag CHECK (IsPOI IN (0, 1))
        CONSTRAINT poi_only_on_marks CHECK (IsPOI = 0 OR Marked = 1),
    CONSTRAINT heading_change_has_heading
        CHECK (IsHeadingChanged = 0 OR (Heading IS NOT NULL AND HeadingTimeStamp IS NOT NULL))
) STRICT;

-- The rows were checked when they were written (the same rules); checking them again would only make this slower.
PRAGMA ignore_check_constraints = ON;
INSERT INTO EntryRows (
    Key, SessionKey, Latitude, Longitude, Altitude, HorizontalAccuracy, VerticalAccuracy, TimeStamp, Speed, Course,
    Address, Marked, EntryID, InstanceCount, Heading, IsHeadingChanged, HeadingTimeStamp, Label, Satellites, HDOP,
    VDOP, PDOP, FixMode, SpeedAccuracy, CourseAccuracy, Motion, BatteryState, BatteryLevel, DeviceID, Wifi,
    StartsSegment, Monitoring, ReportTrigger, InRegions, Tag, IsPOI)
SELECT
    Key, (SELECT s.Key FROM Sessions s WHERE s.ID = e.Session), Latitude, Longitude, Altitude, HorizontalAccuracy,
    VerticalAccuracy, TimeStamp, Speed, Course, Address, Marked, gpslog_entry_id(EntryID, TimeStamp), InstanceCount,
    Heading, IsHeadingChanged, HeadingTimeStamp, Label, Satellites, HDOP, VDOP, PDOP, FixMode, SpeedAccuracy,
    CourseAccuracy, Motion, BatteryState, BatteryLevel, DeviceID, Wifi, StartsSegment, Monitoring, ReportTrigger,
    InRegions, Tag, IsPOI
FROM Entries e ORDER BY Key;
PRAGMA ignore_check_constraints = OFF;
DROP TABLE Entries;

-- A session's rows in time order: streams, exports, a session's figures, and entry ids found by their time.
CREATE INDEX EntryRows_Session_TimeStamp ON EntryRows (SessionKey, TimeStamp);
-- The marks alone (as migration 8's index).
CREATE INDEX EntryRows_Marks ON EntryRows (SessionKey, TimeStamp) WHERE Marked = 1;
-- Ids stored whole are unique by this index (a query must say `length(EntryID) <> 10` to use it).
CREATE UNIQUE INDEX EntryRows_EntryID ON EntryRows (EntryID) WHERE length(EntryID) <> 10;

-- The days (TimeStamp / 86400000) on which each session has entries: an id stored after its time is looked up in
-- the sessions that have entries on its day, one index probe each. It may name a day whose rows are gone.
CREATE TABLE EntryDays (
    Day        INTEGER NOT NULL,
    SessionKey INTEGER NOT NULL,
    PRIMARY KEY (Day, SessionKey)
) STRICT, WITHOUT ROWID;
INSERT INTO EntryDays (Day, SessionKey) SELECT DISTINCT TimeStamp / 86400000, SessionKey FROM EntryRows;

-- A session's rows and days go with it, whether or not the connection enforces foreign keys (sqlite3 does not by
-- default).
CREATE TRIGGER Sessions_rows_delete AFTER DELETE ON Sessions BEGIN
    DELETE FROM EntryRows WHERE SessionKey = OLD.Key;
    DELETE FROM EntryDays WHERE SessionKey = OLD.Key;
END;

CREATE VIEW Entries AS
SELECT
    e.Key, s.ID AS Session, e.Latitude, e.Longitude, e.Altitude, e.HorizontalAccuracy, e.VerticalAccuracy, e.TimeStamp,
    e.Speed, e.Course, e.Address, e.Marked,
    CASE WHEN typeof(e.EntryID) = 'text' THEN e.EntryID ELSE lower(
        substr(CASE WHEN length(e.EntryID) = 10 THEN printf('%012X', e.TimeStamp) || hex(e.EntryID) ELSE hex(e.EntryID) END, 1, 8) || '-' ||
        substr(CASE WHEN length(e.EntryID) = 10 THEN printf('%012X', e.TimeStamp) || hex(e.EntryID) ELSE hex(e.EntryID) END, 9, 4) || '-' ||
        substr(CASE WHEN length(e.EntryID) = 10 THEN printf('%012X', e.TimeStamp) || hex(e.EntryID) ELSE hex(e.EntryID) END, 13, 4) || '-' ||
        substr(CASE WHEN length(e.EntryID) = 10 THEN printf('%012X', e.TimeStamp) || hex(e.EntryID) ELSE hex(e.EntryID) END, 17, 4) || '-' ||
        substr(CASE WHEN length(e.EntryID) = 10 THEN printf('%012X', e.TimeStamp) || hex(e.EntryID) ELSE hex(e.EntryID) END, 21, 12))
    END AS EntryID,
    e.InstanceCount, e.Heading, e.IsHeadingChanged, e.HeadingTimeStamp, e.Label, e.Satellites, e.HDOP, e.VDOP, e.PDOP,
    e.FixMode, e.SpeedAccuracy, e.CourseAccuracy, e.Motion, e.BatteryState, e.BatteryLevel, e.DeviceID, e.Wifi,
    e.StartsSegment, e.Monitoring, e.ReportTrigger, e.InRegions, e.Tag, e.IsPOI
FROM EntryRows e JOIN Sessions s ON s.Key = e.SessionKey;

-- Writes through the view (sqlite3, a user's script) reach EntryRows, and make the session's kept figures unknown,
-- so the next read counts them again. Ids written this way are kept as text.
CREATE TRIGGER Entries_insert INSTEAD OF INSERT ON Entries BEGIN
    SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed') WHERE NOT EXISTS (SELECT 1 FROM Sessions WHERE ID = NEW.Session);
    INSERT INTO EntryRows (
        Key, SessionKey, Latitude, Longitude, Altitude, HorizontalAccuracy, VerticalAccuracy, TimeStamp, Speed, Course,
        Address, Marked, EntryID, InstanceCount, Heading, IsHeadingChanged, HeadingTimeStamp, Label, Satellites, HDOP,
        VDOP, PDOP, FixMode, SpeedAccuracy, CourseAccuracy, Motion, BatteryState, BatteryLevel, DeviceID, Wifi,
        StartsSegment, Monitoring, ReportTrigger, InRegions, Tag, IsPOI)
    VALUES (
        NEW.Key, (SELECT Key FROM Sessions WHERE ID = NEW.Session), NEW.Latitude, NEW.Longitude, NEW.Altitude,
        NEW.HorizontalAccuracy, NEW.VerticalAccuracy, NEW.TimeStamp, NEW.Speed, NEW.Course, NEW.Address,
        COALESCE(NEW.Marked, 0), NEW.EntryID, COALESCE(NEW.InstanceCount, 1), NEW.Heading,
        COALESCE(NEW.IsHeadingChanged, 0), NEW.HeadingTimeStamp, NEW.Label, NEW.Satellites, NEW.HDOP, NEW.VDOP,
        NEW.PDOP, NEW.FixMode, NEW.SpeedAccuracy, NEW.CourseAccuracy, NEW.Motion, NEW.BatteryState, NEW.BatteryLevel,
        NEW.DeviceID, NEW.Wifi, COALESCE(NEW.StartsSegment, 0), NEW.Monitoring, NEW.ReportTrigger, NEW.InRegions,
        NEW.Tag, COALESCE(NEW.IsPOI, 0));
    INSERT OR IGNORE INTO EntryDays (Day, SessionKey)
        VALUES (CAST(NEW.TimeStamp AS INTEGER) / 86400000, (SELECT Key FROM Sessions WHERE ID = NEW.Session));
    DELETE FROM SessionSummaries WHERE Session = (SELECT Key FROM Sessions WHERE ID = NEW.Session);
END;

CREATE TRIGGER Entries_update INSTEAD OF UPDATE ON Entries BEGIN
    SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed') WHERE NOT EXISTS (SELECT 1 FROM Sessions WHERE ID = NEW.Session);
    UPDATE EntryRows SET
        Key = NEW.Key, SessionKey = (SELECT Key FROM Sessions WHERE ID = NEW.Session), Latitude = NEW.Latitude,
        Longitude = NEW.Longitude, Altitude = NEW.Altitude, HorizontalAccuracy = NEW.HorizontalAccuracy,
        VerticalAccuracy = NEW.VerticalAccuracy, TimeStamp = NEW.TimeStamp, Speed = NEW.Speed, Course = NEW.Course,
        Address = NEW.Address, Marked = NEW.Marked,
        -- An id stored after its time is written out whole when the time changes under it.
        EntryID = CASE WHEN NEW.EntryID IS NOT OLD.EntryID THEN NEW.EntryID
                       WHEN NEW.TimeStamp IS NOT OLD.TimeStamp AND length(EntryID) = 10 THEN OLD.EntryID
                       ELSE EntryID END,
        InstanceCount = NEW.InstanceCount, Heading = NEW.Heading, IsHeadingChanged = NEW.IsHeadingChanged,
        HeadingTimeStamp = NEW.HeadingTimeStamp, Label = NEW.Label, Satellites = NEW.Satellites, HDOP = NEW.HDOP,
        VDOP = NEW.VDOP, PDOP = NEW.PDOP, FixMode = NEW.FixMode, SpeedAccuracy = NEW.SpeedAccuracy,
        CourseAccuracy = NEW.CourseAccuracy, Motion = NEW.Motion, BatteryState = NEW.BatteryState,
        BatteryLevel = NEW.BatteryLevel, DeviceID = NEW.DeviceID, Wifi = NEW.Wifi, StartsSegment = NEW.StartsSegment,
        Monitoring = NEW.Monitoring, ReportTrigger = NEW.ReportTrigger, InRegions = NEW.InRegions, Tag = NEW.Tag,
        IsPOI = NEW.IsPOI
    WHERE Key = OLD.Key;
    INSERT OR IGNORE INTO EntryDays (Day, SessionKey)
        VALUES (CAST(NEW.TimeStamp AS INTEGER) / 86400000, (SELECT Key FROM Sessions WHERE ID = NEW.Session));
    DELETE FROM SessionSummaries WHERE Session IN (SELECT Key FROM Sessions WHERE ID IN (OLD.Session, NEW.Session))
        AND (NEW.Key IS NOT OLD.Key OR NEW.Session IS NOT OLD.Session OR NEW.Latitude IS NOT OLD.Latitude
             OR NEW.Longitude IS NOT OLD.Longitude OR NEW.TimeStamp IS NOT OLD.TimeStamp OR NEW.Speed IS NOT OLD.Speed
             OR NEW.Marked IS NOT OLD.Marked OR NEW.IsHeadingChanged IS NOT OLD.IsHeadingChanged
             OR NEW.InstanceCount IS NOT OLD.InstanceCount);
END;

CREATE TRIGGER Entries_delete INSTEAD OF DELETE ON Entries BEGIN
    DELETE FROM EntryRows WHERE Key = OLD.Key;
    DELETE FROM SessionSummaries WHERE Session = (SELECT Key FROM Sessions WHERE ID = OLD.Session);
END;
