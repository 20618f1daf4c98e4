-- Migration 27: an edit through the Entries view (sqlite3, a user's script) keeps a point's attributes (Extras' "a":
-- the keys a phone app sent that gpslog has no column for), which the view does not show: Entries_update of
-- migration 21, with 'a' carried over when it writes Extras again.
DROP TRIGGER Entries_update;

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
                          'poi', NULLIF(NEW.IsPOI, 0),
                          'a', json(json_extract(Extras, '$.a')))), '{}') END
    WHERE Key = OLD.Key;
    INSERT OR IGNORE INTO EntryDays (Day, SessionKey)
        VALUES (CAST(NEW.TimeStamp AS INTEGER) / 86400000, (SELECT Key FROM Sessions WHERE ID = NEW.Session));
    DELETE FROM SessionSummaries WHERE Session IN (SELECT Key FROM Sessions WHERE ID IN (OLD.Session, NEW.Session))
        AND (NEW.Key IS NOT OLD.Key OR NEW.Session IS NOT OLD.Session OR NEW.Latitude IS NOT OLD.Latitude
             OR NEW.Longitude IS NOT OLD.Longitude OR NEW.TimeStamp IS NOT OLD.TimeStamp OR NEW.Speed IS NOT OLD.Speed
             OR NEW.Marked IS NOT OLD.Marked OR NEW.IsHeadingChanged IS NOT OLD.IsHeadingChanged
             OR NEW.InstanceCount IS NOT OLD.InstanceCount);
END;
