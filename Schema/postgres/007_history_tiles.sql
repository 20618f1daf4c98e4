-- Migration 7: the history map's tile pyramid (`serve --store postgres://`'s /history), kept as the SQLite store
-- keeps it (Schema/025_history_tiles.sql): the visits of each session to zoom-16 tiles, and the tiles drawn from
-- them, kept until a write touches them. Several serve processes on one database draw and keep one pyramid.
--
-- Kept like day_figures (005): the triggers on entries note the changed days (gpslog_note_days, now in
-- history_stale too), and a reader counts the noted days' visits again before it draws
-- (PostgresSessionReader+History.swift), then drops the kept tiles their old and new visits touch. Measured against
-- drawing each tile by PostGIS queries on demand: a world tile then reads every point of the history.

-- A session's visits to a zoom-16 tile on one UTC day: from the first to the last time its track (its points and
-- the lines between points at most 5 minutes apart, the first from the day before's last point) was there.
CREATE TABLE history_spans (
    session_id uuid NOT NULL,
    -- Days since 1970-01-01 (UTC), floored: the day whose count wrote the row.
    day        int8 NOT NULL,
    x          int4 NOT NULL,
    y          int4 NOT NULL,
    -- gpslog milliseconds.
    first_ms   int8 NOT NULL,
    last_ms    int8 NOT NULL
);
CREATE INDEX history_spans_tile ON history_spans (x, y);
CREATE INDEX history_spans_day ON history_spans (session_id, day);

-- The days whose visits wait to be counted again (as day_figures_stale).
CREATE TABLE history_stale (
    session_id uuid        NOT NULL,
    day        int8        NOT NULL,
    noted_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (session_id, day)
);

-- Kept tiles, zoom 0 to 13: each pixel's count of track line pixels, sparse (HistoryRaster.sparse: a u16 pixel
-- index and a u32 count, little-endian, per pixel with a track). `scope` is whose tracks: '*' every session's (an
-- admin), 'user:NAME' a user's devices'.
CREATE TABLE history_tiles (
    z      int2  NOT NULL,
    x      int4  NOT NULL,
    y      int4  NOT NULL,
    scope  text  NOT NULL,
    counts bytea NOT NULL,
    PRIMARY KEY (z, x, y, scope)
);

-- As in migration 5, and the same days noted in history_stale.
CREATE OR REPLACE FUNCTION gpslog_note_days(changed_sessions uuid[], changed_times timestamptz[]) RETURNS void
LANGUAGE sql AS $$
    WITH c AS (
        SELECT s AS session_id, floor(gpslog_ms(t) / 86400000.0)::int8 AS day, t
        FROM unnest(changed_sessions, changed_times) AS u(s, t)
    ), last_of_day AS (
        SELECT session_id, day, max(t) AS t FROM c GROUP BY session_id, day
    ), days AS (
        SELECT session_id, day FROM last_of_day
        UNION
        SELECT l.session_id, floor(gpslog_ms(n.time) / 86400000.0)::int8
        FROM last_of_day l CROSS JOIN LATERAL (
            SELECT e.time FROM entries e
            WHERE e.session_id = l.session_id AND e.time > l.t AND NOT e.marked AND NOT e.is_heading_changed
            ORDER BY e.time LIMIT 1) n
    ), history AS (
        INSERT INTO history_stale (session_id, day)
        SELECT session_id, day FROM days ORDER BY session_id, day
        ON CONFLICT (session_id, day) DO UPDATE SET noted_at = clock_timestamp()
    )
    INSERT INTO day_figures_stale (session_id, day)
    SELECT session_id, day FROM days ORDER BY session_id, day
    ON CONFLICT (session_id, day) DO UPDATE SET noted_at = clock_timestamp();
$$;

-- Every day that has entries now is counted by the first reader of the map.
INSERT INTO history_stale (session_id, day)
SELECT DISTINCT session_id, floor(gpslog_ms(time) / 86400000.0)::int8 FROM entries;
