-- Migration 5: the Overland properties, so an Overland payload round-trips through the database.
ALTER TABLE Entries ADD COLUMN SpeedAccuracy REAL CONSTRAINT speed_accuracy_not_negative CHECK (SpeedAccuracy >= 0);
ALTER TABLE Entries ADD COLUMN CourseAccuracy REAL CONSTRAINT course_accuracy_not_negative CHECK (CourseAccuracy >= 0);
-- A JSON array of strings, as Overland sends it: '["driving","stationary"]'.
ALTER TABLE Entries ADD COLUMN Motion TEXT CONSTRAINT motion_is_json_array CHECK (json_type(Motion) = 'array');
ALTER TABLE Entries ADD COLUMN BatteryState TEXT
    CONSTRAINT battery_state_known CHECK (BatteryState IN ('unknown', 'charging', 'full', 'unplugged'));
ALTER TABLE Entries ADD COLUMN BatteryLevel REAL CONSTRAINT battery_level_fraction CHECK (BatteryLevel BETWEEN 0 AND 1);
ALTER TABLE Entries ADD COLUMN DeviceID TEXT;
ALTER TABLE Entries ADD COLUMN Wifi TEXT;
