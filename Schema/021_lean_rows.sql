-- Migration 21: lean rows. EntryRows keeps in columns of their own what a track point has (position, altitude,
-- accuracies, time, speed, course, address, satellites and DOPs, the mark and heading-change flags, the id and the
-- instance count) and holds the 16 columns that few rows use (heading, labels, OwnTracks' and Overland's
-- properties, the segment start and the POI flag) in one JSON object, Extras, NULL when a row has none of them. The
-- Entries view shows every column as before, with the same names, types and values; writes through it work as
-- before.
--
-- Why: SQLite writes one header byte per column in every row, NULLs included, and a row's 36 columns took 37 such
-- bytes where a GPX track point fills about 7. Measured with dbstat on the generated 1M-point GPX imported (bytes per
-- point, the table + its (SessionKey, TimeStamp) index): 83.1 + 18.3 = 101.5 before, 67.7 + 18.3 = 86.2 now, against
-- 87.4 for `ogr2ogr -f SQLite ... track_points`. Folding Marked and IsHeadingChanged into one flags column as well
-- would save one byte more (85.1), but they are what queries filter on (marks, kept figures, cleaning); StartsSegment
-- and IsPOI, rare, fit in Extras. A side table for the rare columns would keep their SQL types, but cost a join per
-- row read and a second insert per row for serve's Overland and OwnTracks points, which have several of them. An
-- Overland point with its battery state and level: 132 bytes a row before, 127 now.
--
-- Extras' keys (short: they are in every row that has Extras):
--   h Heading, ht HeadingTimeStamp, l Label, sa SpeedAccuracy, ca CourseAccuracy, m Motion, bs BatteryState,
--   bl BatteryLevel, d DeviceID, w Wifi, ss StartsSegment, mo Monitoring, t ReportTrigger, r InRegions, tg Tag,
--   poi IsPOI.
-- A flag is there only when 1. Motion and InRegions are nested arrays when their text is compact JSON (what gpslog
-- writes), else JSON strings of their text, so json_extract gives back the text as written either way. Reals are
-- written so that they read back exactly: the shortest digits by gpslog, 19 significant digits by this script's
-- triggers (json_object would keep 15), 9e999 for an infinity. The CHECK constraints keep their names and SQLite's
-- order (all are table constraints now, in the order the columns had them).
--
-- The copy uses the SQL function gpslog_entry_extras(...), which gpslog registers on its connections (it writes
-- Extras as the Store does, and counts the rows for the progress bar).

DROP VIEW Entries;
DROP TRIGGER Sessions_rows_delete;

CREATE TABLE EntryRows21 (
    Key                INTEGER PRIMARY KEY,
    -- Sessions.Key.
    SessionKey         INTEGER NOT NULL REFERENCES Sessions (Key) ON DELETE CASCADE,
    Latitude           REAL    NOT NULL,
    Longitude          REAL    NOT NULL,
    Altitude           REAL,
    HorizontalAccuracy REAL,
    VerticalAccuracy   REAL,
    TimeStamp          INTEGER NOT NULL,
    Speed              REAL,
    Course             REAL,
    Address            TEXT,
    Marked             INTEGER NOT NULL DEFAULT 0,
    EntryID            ANY     NOT NULL,
    InstanceCount      INTEGER NOT NULL DEFAULT 1,
    IsHeadingChanged   INTEGER NOT NULL DEFAULT 0,
    Satellites         INTEGER,
    HDOP               REAL,
    VDOP               REAL,
    PDOP               REAL,
    FixMode            INTEGER,
    -- The rare columns, as a JSON object (see above).
    Extras             TEXT,
    CONSTRAINT latitude_in_range CHECK (Latitude BETWEEN -90 AND 90),
    CONSTRAINT longitude_in_range CHECK (Longitude BETWEEN -180 AND 180),
    CONSTRAINT horizontal_accuracy_not_negative CHECK (HorizontalAccuracy >= 0),
    CONSTRAINT vertical_accuracy_not_negative CHECK (VerticalAccuracy >= 0),
    CONSTRAINT speed_not_negative CHECK (Speed >= 0),
    CONSTRAINT course_in_range CHECK (Course >= 0 AND Course < 360),
    CONSTRAINT marked_is_flag CHECK (Marked IN (0, 1)),
    CONSTRAINT entry_id_is_uuid CHECK (
        (typeof(EntryID) = 'blob' AND length(EntryID) IN (10, 16)) OR (typeof(EntryID) = 'text' AND length(EntryID) = 36)),
    CONSTRAINT instance_count_positive CHECK (InstanceCount >= 1),
    CONSTRAINT heading_in_range CHECK (json_extract(Extras, '$.h') >= 0 AND json_extract(Extras, '$.h') < 360),
    CONSTRAINT heading_changed_is_flag CHECK (IsHeadingChanged IN (0, 1)),
    CONSTRAINT label_only_on_marks CHECK (json_extract(Extras, '$.l') IS NULL OR Marked = 1),
    CONSTRAINT satellites_not_negative CHECK (Satellites >= 0),
    CONSTRAINT hdop_not_negative CHECK (HDOP >= 0),
    CONSTRAINT vdop_not_negative CHECK (VDOP >= 0),
    CONSTRAINT pdop_not_negative CHECK (PDOP >= 0),
    CONSTRAINT fix_mode_known CHECK (FixMode IN (2, 3)),
    CONSTRAINT speed_accuracy_not_negative CHECK (json_extract(Extras, '$.sa') >= 0),
    CONSTRAINT course_accuracy_not_negative CHECK (json_extract(Extras, '$.ca') >= 0),
    CONSTRAINT motion_is_json_array CHECK (json_type(json_extract(Extras, '$.m')) = 'array'),
    CONSTRAINT battery_state_known CHECK (json_extract(Extras, '$.bs') IN ('unknown', 'charging', 'full', 'unplugged')),
    CONSTRAINT battery_level_fraction CHECK (json_extract(Extras, '$.bl') BETWEEN 0 AND 1),
    CONSTRAINT starts_segment_is_flag CHECK (json_extract(Extras, '$.ss') IN (0, 1)),
    CONSTRAINT monitoring_known CHECK (json_extract(Extras, '$.mo') IN (-1, 0, 1, 2)),
    CONSTRAINT report_trigger_known CHECK (json_extract(Extras, '$.t') IN ('p', 'c', 'C', 'b', 'r', 'u', 't', 'v')),
    CONSTRAINT in_regions_is_json_array CHECK (json_type(json_extract(Extras, '$.r')) = 'array'),
    CONSTRAINT poi_is_flag CHECK (json_extract(Extras, '$.poi') IN (0, 1)),
    CONSTRAINT poi_only_on_marks CHECK (json_extract(Extras, '$.poi') IS NULL OR json_extract(Extras, '$.poi') = 0 OR Marked = 1),
    CONSTRAINT heading_change_has_heading
        CHECK (IsHeadingChanged = 0 OR (json_extract(Extras, '$.h') IS NOT NULL AND json_extract(Extras, '$.ht') IS NOT NULL))
) STRICT;

-- The rows were checked when they were written (the same rules); checking them again would only make this slower.
PRAGMA ignore_check_constraints = ON;
INSERT INTO EntryRows21 (
    Key, SessionKey, Latitude, Longitude, Altitude, HorizontalAccuracy, VerticalAccuracy, TimeStamp, Speed, Course,
    Address, Marked, EntryID, InstanceCount, IsHeadingChanged, Satellites, HDOP, VDOP, PDOP, FixMode, Extras)
SELECT
    Key, SessionKey, Latitude, Longitude, Altitude, HorizontalAccuracy, VerticalAccuracy, TimeStamp, Speed, Course,
    Address, Marked, EntryID, InstanceCount, IsHeadingChanged, Satellites, HDOP, VDOP, PDOP, FixMode,
    gpslog_entry_extras(Heading, HeadingTimeStamp, Label, SpeedAccuracy, CourseAccuracy, Motion, BatteryState,
        BatteryLevel, DeviceID, Wifi, StartsSegment, Monitoring, ReportTrigger, InRegions, Tag, IsPOI)
FROM EntryRows ORDER BY Key;
PRAGMA ignore_check_constraints = OFF;
DROP TABLE EntryRows;
ALTER TABLE EntryRows21 RENAME TO EntryRows;

-- As migration 20 made them.
CREATE INDEX EntryRows_Session_TimeStamp ON EntryRows (SessionKey, TimeStamp);
CREATE INDEX EntryRows_Marks ON EntryRows (SessionKey, TimeStamp) WHERE Marked = 1;
CREATE UNIQUE INDEX EntryRows_EntryID ON EntryRows (EntryID) WHERE length(EntryID) <> 10;

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
    e.InstanceCount, json_extract(e.Extras, '$.h') AS Heading, e.IsHeadingChanged,
    json_extract(e.Extras, '$.ht') AS HeadingTimeStamp, json_extract(e.Extras, '$.l') AS Label, e.Satellites, e.HDOP, e.VDOP,
    e.PDOP, e.FixMode, json_extract(e.Extras, '$.sa') AS SpeedAccuracy,
    json_extract(e.Extras, '$.ca') AS CourseAccuracy, json_extract(e.Extras, '$.m') AS Motion,
    json_extract(e.Extras, '$.bs') AS BatteryState, json_extract(e.Extras, '$.bl') AS BatteryLevel,
    json_extract(e.Extras, '$.d') AS DeviceID, json_extract(e.Extras, '$.w') AS Wifi,
    COALESCE(json_extract(e.Extras, '$.ss'), 0) AS StartsSegment, json_extract(e.Extras, '$.mo') AS Monitoring,
    json_extract(e.Extras, '$.t') AS ReportTrigger, json_extract(e.Extras, '$.r') AS InRegions,
    json_extract(e.Extras, '$.tg') AS Tag, COALESCE(json_extract(e.Extras, '$.poi'), 0) AS IsPOI
FROM EntryRows e JOIN Sessions s ON s.Key = e.SessionKey;

-- Writes through the view (sqlite3, a user's script) reach EntryRows, and make the session's kept figures unknown,
-- so the next read counts them again. Ids written this way are kept as text.
CREATE TRIGGER Entries_insert INSTEAD OF INSERT ON Entries BEGIN
    SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed') WHERE NOT EXISTS (SELECT 1 FROM Sessions WHERE ID = NEW.Session);
    INSERT INTO EntryRows (
        Key, SessionKey, Latitude, Longitude, Altitude, HorizontalAccuracy, VerticalAccuracy, TimeStamp, Speed, Course,
        Address, Marked, EntryID, InstanceCount, IsHeadingChanged, Satellites, HDOP, VDOP, PDOP, FixMode, Extras)
    VALUES (
        NEW.Key, (SELECT Key FROM Sessions WHERE ID = NEW.Session), NEW.Latitude, NEW.Longitude, NEW.Altitude,
        NEW.HorizontalAccuracy, NEW.VerticalAccuracy, NEW.TimeStamp, NEW.Speed, NEW.Course, NEW.Address,
        COALESCE(NEW.Marked, 0), NEW.EntryID, COALESCE(NEW.InstanceCount, 1), COALESCE(NEW.IsHeadingChanged, 0),
        NEW.Satellites, NEW.HDOP, NEW.VDOP, NEW.PDOP, NEW.FixMode,
        NULLIF(json_patch('{}', json_object(
            'h', CASE WHEN NEW.Heading IS NULL THEN NULL WHEN abs(NEW.Heading) > 1.7976931348623157e308
                THEN json(iif(NEW.Heading > 0, '9e999', '-9e999')) ELSE json(printf('%!.18e', NEW.Heading + 0.0)) END,
            'ht', CAST(NEW.HeadingTimeStamp AS INTEGER),
            'l', CAST(NEW.Label AS TEXT),
            'sa', CASE WHEN NEW.SpeedAccuracy IS NULL THEN NULL WHEN abs(NEW.SpeedAccuracy) > 1.7976931348623157e308
                THEN json(iif(NEW.SpeedAccuracy > 0, '9e999', '-9e999')) ELSE json(printf('%!.18e', NEW.SpeedAccuracy + 0.0)) END,
            'ca', CASE WHEN NEW.CourseAccuracy IS NULL THEN NULL WHEN abs(NEW.CourseAccuracy) > 1.7976931348623157e308
                THEN json(iif(NEW.CourseAccuracy > 0, '9e999', '-9e999')) ELSE json(printf('%!.18e', NEW.CourseAccuracy + 0.0)) END,
            'm', iif(json(NEW.Motion) IS NEW.Motion, json(NEW.Motion), NEW.Motion),
            'bs', CAST(NEW.BatteryState AS TEXT),
            'bl', CASE WHEN NEW.BatteryLevel IS NULL THEN NULL WHEN abs(NEW.BatteryLevel) > 1.7976931348623157e308
                THEN json(iif(NEW.BatteryLevel > 0, '9e999', '-9e999')) ELSE json(printf('%!.18e', NEW.BatteryLevel + 0.0)) END,
            'd', CAST(NEW.DeviceID AS TEXT),
            'w', CAST(NEW.Wifi AS TEXT),
            'ss', NULLIF(NEW.StartsSegment, 0),
            'mo', CAST(NEW.Monitoring AS INTEGER),
            't', CAST(NEW.ReportTrigger AS TEXT),
            'r', iif(json(NEW.InRegions) IS NEW.InRegions, json(NEW.InRegions), NEW.InRegions),
            'tg', CAST(NEW.Tag AS TEXT),
            'poi', NULLIF(NEW.IsPOI, 0))), '{}'));
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
        InstanceCount = NEW.InstanceCount, IsHeadingChanged = NEW.IsHeadingChanged, Satellites = NEW.Satellites,
        HDOP = NEW.HDOP, VDOP = NEW.VDOP, PDOP = NEW.PDOP, FixMode = NEW.FixMode,
        -- Written again only when one of its columns changed, so that an edit of another column leaves it as it was.
        Extras = CASE WHEN NEW.Heading IS OLD.Heading AND NEW.HeadingTimeStamp IS OLD.HeadingTimeStamp
                           AND NEW.Label IS OLD.Label AND NEW.SpeedAccuracy IS OLD.SpeedAccuracy
                           AND NEW.CourseAccuracy IS OLD.CourseAccuracy AND NEW.Motion IS OLD.Motion
                           AND NEW.BatteryState IS OLD.BatteryState AND NEW.BatteryLevel IS OLD.BatteryLevel
                           AND NEW.DeviceID IS OLD.DeviceID AND NEW.Wifi IS OLD.Wifi
                           AND NEW.StartsSegment IS OLD.StartsSegment AND NEW.Monitoring IS OLD.Monitoring
                           AND NEW.ReportTrigger IS OLD.ReportTrigger AND NEW.InRegions IS OLD.InRegions
                           AND NEW.Tag IS OLD.Tag AND NEW.IsPOI IS OLD.IsPOI THEN Extras
                      ELSE NULLIF(json_patch('{}', json_object(
                          'h', CASE WHEN NEW.Heading IS NULL THEN NULL WHEN abs(NEW.Heading) > 1.7976931348623157e308
                              THEN json(iif(NEW.Heading > 0, '9e999', '-9e999')) ELSE json(printf('%!.18e', NEW.Heading + 0.0)) END,
                          'ht', CAST(NEW.HeadingTimeStamp AS INTEGER),
                          'l', CAST(NEW.Label AS TEXT),
                          'sa', CASE WHEN NEW.SpeedAccuracy IS NULL THEN NULL WHEN abs(NEW.SpeedAccuracy) > 1.7976931348623157e308
                              THEN json(iif(NEW.SpeedAccuracy > 0, '9e999', '-9e999')) ELSE json(printf('%!.18e', NEW.SpeedAccuracy + 0.0)) END,
                          'ca', CASE WHEN NEW.CourseAccuracy IS NULL THEN NULL WHEN abs(NEW.CourseAccuracy) > 1.7976931348623157e308
                              THEN json(iif(NEW.CourseAccuracy > 0, '9e999', '-9e999')) ELSE json(printf('%!.18e', NEW.CourseAccuracy + 0.0)) END,
                          'm', iif(json(NEW.Motion) IS NEW.Motion, json(NEW.Motion), NEW.Motion),
                          'bs', CAST(NEW.BatteryState AS TEXT),
                          'bl', CASE WHEN NEW.BatteryLevel IS NULL THEN NULL WHEN abs(NEW.BatteryLevel) > 1.7976931348623157e308
                              THEN json(iif(NEW.BatteryLevel > 0, '9e999', '-9e999')) ELSE json(printf('%!.18e', NEW.BatteryLevel + 0.0)) END,
                          'd', CAST(NEW.DeviceID AS TEXT),
                          'w', CAST(NEW.Wifi AS TEXT),
                          'ss', NULLIF(NEW.StartsSegment, 0),
                          'mo', CAST(NEW.Monitoring AS INTEGER),
                          't', CAST(NEW.ReportTrigger AS TEXT),
                          'r', iif(json(NEW.InRegions) IS NEW.InRegions, json(NEW.InRegions), NEW.InRegions),
                          'tg', CAST(NEW.Tag AS TEXT),
                          'poi', NULLIF(NEW.IsPOI, 0))), '{}') END
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
