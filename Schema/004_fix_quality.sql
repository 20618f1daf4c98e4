-- Migration 4: fix quality, for GPX's sat/hdop/vdop/pdop and for filtering poor fixes.
ALTER TABLE Entries ADD COLUMN Satellites INTEGER CONSTRAINT satellites_not_negative CHECK (Satellites >= 0);
ALTER TABLE Entries ADD COLUMN HDOP REAL CONSTRAINT hdop_not_negative CHECK (HDOP >= 0);
ALTER TABLE Entries ADD COLUMN VDOP REAL CONSTRAINT vdop_not_negative CHECK (VDOP >= 0);
ALTER TABLE Entries ADD COLUMN PDOP REAL CONSTRAINT pdop_not_negative CHECK (PDOP >= 0);
-- 2 = 2D, 3 = 3D (gpsd's TPV mode; NMEA GSA).
ALTER TABLE Entries ADD COLUMN FixMode INTEGER CONSTRAINT fix_mode_known CHECK (FixMode IN (2, 3));
