-- Migration 4: the keys a phone app sent that gpslog has no field for (Traccar's position attributes, Traccar
-- Client's extras), as SQLite keeps them in the entry's extras: one JSON object of texts per entry. NULL: none.
ALTER TABLE entries ADD COLUMN attributes jsonb
    CONSTRAINT entry_attributes_object CHECK (attributes IS NULL OR jsonb_typeof(attributes) = 'object');
