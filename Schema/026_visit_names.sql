-- Migration 26: a name the user gives a visit's place (`gpslog visit rename`), shown before its address by
-- `gpslog timeline` and the day page. NULL: no name (the address, else the position, is shown).
ALTER TABLE Visits ADD COLUMN Name TEXT
    CONSTRAINT visit_name_length CHECK (Name IS NULL OR length(Name) BETWEEN 1 AND 200);
