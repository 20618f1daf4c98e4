-- Migration 6: reverse geocoding. The pending work is the entries whose Address is NULL (durable by nature);
-- these tables make sure no finished request is repeated and no rate limit is broken across restarts.

-- One answer per provider, language and cell (a geohash prefix, or "@lat,lon" for a mark's exact point).
-- Address NULL with Status 'none' is a negative answer ("no address here"), cached until ExpiresAt.
CREATE TABLE GeocodeCache (
    Provider  TEXT    NOT NULL,
    Language  TEXT    NOT NULL,
    Cell      TEXT    NOT NULL,
    Latitude  REAL    NOT NULL,
    Longitude REAL    NOT NULL,
    Status    TEXT    NOT NULL CONSTRAINT geocode_status_known CHECK (Status IN ('found', 'none')),
    Address   TEXT    CONSTRAINT found_has_address CHECK ((Status = 'found') = (Address IS NOT NULL)),
    FetchedAt INTEGER NOT NULL,
    ExpiresAt INTEGER,
    PRIMARY KEY (Provider, Language, Cell)
) STRICT;

-- Per provider: when the last request went out (the token bucket, so a restart does not burst), a pause after
-- HTTP 429/503 with its current backoff, and a block after HTTP 403 that only the user lifts.
CREATE TABLE GeocodeProviders (
    Provider      TEXT    PRIMARY KEY,
    LastRequestAt INTEGER,
    PausedUntil   INTEGER,
    BackoffMs     INTEGER,
    Blocked       TEXT
) STRICT;
