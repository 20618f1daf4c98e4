-- Migration 3: the name the user gives a visit's place (`gpslog visit rename`, SQLite's Visits.Name), carried by
-- `gpslog sync`. NULL: no name. At most 200 characters, as in SQLite.
ALTER TABLE visits ADD COLUMN name text
    CONSTRAINT visit_name_length CHECK (name IS NULL OR length(name) BETWEEN 1 AND 200);
