-- Migration 15: OwnTracks' tag (`record --tag`, `gpslog tag`: a text kept with every following entry) and POIs
-- (`gpslog mark --poi`: a mark whose label names a point of interest, sent as OwnTracks' poi).
ALTER TABLE Entries ADD COLUMN Tag TEXT;
ALTER TABLE Entries ADD COLUMN IsPOI INTEGER NOT NULL DEFAULT 0
    CONSTRAINT poi_is_flag CHECK (IsPOI IN (0, 1))
    CONSTRAINT poi_only_on_marks CHECK (IsPOI = 0 OR Marked = 1);
