-- Migration 2: a label for marks (`gpslog mark "Trailhead"`).
ALTER TABLE Entries ADD COLUMN Label TEXT CONSTRAINT label_only_on_marks CHECK (Label IS NULL OR Marked = 1);
