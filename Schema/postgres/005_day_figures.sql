-- Migration 5: each session's figures per UTC day, kept for the web view's sessions list and statistics, as the
-- SQLite store keeps its DaySummaries and SessionSummaries. A session's summary is the sum of its days.
--
-- Kept by triggers, so every writer (each serve process, each sync, another SQL client) keeps them alike: a
-- statement that inserts, updates or deletes entries notes the days it changed in day_figures_stale (and the day of
-- the next track point after each changed day: its step into that point changed). A reader counts the noted days
-- again before it reads (PostgresSessionReader+DayFigures.swift). Counting in the trigger would put every phone's
-- post behind a window query over its day; noting a day costs one index row.
--
-- day_figures and day_figures_stale have no foreign key to sessions: the rows of a session being deleted are noted
-- by the cascade's trigger after the session row is gone, and the next count removes them.

CREATE TABLE day_figures (
    session_id      uuid             NOT NULL,
    -- Days since 1970-01-01 (UTC), floored.
    day             int8             NOT NULL,
    -- Every entry of the day, its track points (not marks, not heading changes), marks, heading changes, and the
    -- fixes its track points stand for (instance_count).
    entries         int8             NOT NULL,
    track_points    int8             NOT NULL,
    marks           int8             NOT NULL,
    heading_changes int8             NOT NULL,
    fixes           int8             NOT NULL,
    -- gpslog milliseconds of the day's first and last track point; NULL without one.
    first_track_ms  int8,
    last_track_ms   int8,
    -- The box of the day's entries but heading changes (marks count: they are places).
    min_latitude    double precision,
    max_latitude    double precision,
    min_longitude   double precision,
    max_longitude   double precision,
    max_speed       double precision,
    -- The great-circle steps into the day's track points (the first one's from the point before, maybe the day
    -- before), each rounded to nanometres as the SQLite store counts them; the time moving in milliseconds.
    length_nm       int8             NOT NULL,
    moving_ms       int8             NOT NULL,
    -- The ground cells (0.02 degrees) reached below flying speed, sorted: where the day's countries and towns are.
    cells           int8[]           NOT NULL,
    PRIMARY KEY (session_id, day)
);

CREATE TABLE day_figures_stale (
    session_id uuid        NOT NULL,
    day        int8        NOT NULL,
    noted_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (session_id, day)
);

-- Notes the days of the changed rows in `changed` (session_id, time) and, for each, the day of the session's next
-- track point after its last changed time there. DO UPDATE, not DO NOTHING: a reader that is counting a day holds
-- its row; a writer then waits for the reader, and notes the day again once the reader removed it.
CREATE FUNCTION gpslog_note_days(changed_sessions uuid[], changed_times timestamptz[]) RETURNS void
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
    )
    INSERT INTO day_figures_stale (session_id, day)
    SELECT session_id, day FROM days ORDER BY session_id, day
    ON CONFLICT (session_id, day) DO UPDATE SET noted_at = clock_timestamp();
$$;

-- One trigger per event: a trigger with transition tables takes one event.
CREATE FUNCTION gpslog_entries_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM gpslog_note_days(array_agg(session_id), array_agg(time)) FROM new_rows HAVING count(*) > 0;
    RETURN NULL;
END $$;

CREATE FUNCTION gpslog_entries_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM gpslog_note_days(array_agg(session_id), array_agg(time)) FROM old_rows HAVING count(*) > 0;
    RETURN NULL;
END $$;

-- An update notes old and new days only where a counted column changed (a geocoded address changes none).
CREATE FUNCTION gpslog_entries_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM gpslog_note_days(array_agg(c.session_id), array_agg(c.time))
    FROM (
        SELECT r.session_id, r.time FROM new_rows n JOIN old_rows o ON o.id = n.id,
            LATERAL (VALUES (n.session_id, n.time), (o.session_id, o.time)) AS r(session_id, time)
        WHERE (n.session_id, n.time, n.latitude, n.longitude, n.speed, n.marked, n.is_heading_changed,
                n.instance_count)
            IS DISTINCT FROM (o.session_id, o.time, o.latitude, o.longitude, o.speed, o.marked,
                o.is_heading_changed, o.instance_count)
    ) c HAVING count(*) > 0;
    RETURN NULL;
END $$;

CREATE TRIGGER entries_note_days_inserted AFTER INSERT ON entries REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION gpslog_entries_inserted();
CREATE TRIGGER entries_note_days_deleted AFTER DELETE ON entries REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION gpslog_entries_deleted();
CREATE TRIGGER entries_note_days_updated AFTER UPDATE ON entries REFERENCING OLD TABLE AS old_rows
    NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION gpslog_entries_updated();

-- Every day that has entries now is counted by the first reader.
INSERT INTO day_figures_stale (session_id, day)
SELECT DISTINCT session_id, floor(gpslog_ms(time) / 86400000.0)::int8 FROM entries;
