-- gpslog's PostgreSQL schema, version 1: sessions, entries (marks are entries), transitions, visits, and what
-- `serve --store postgres://` keeps of OwnTracks devices. Applied by gpslog (`sync`, `serve --store`) inside one
-- transaction under an advisory lock, recorded in gpslog_schema; see Schema/postgres/README.md.
--
-- Times are timestamptz (UTC; gpslog's milliseconds are exact in PostgreSQL's microseconds). Coordinates are WGS 84
-- degrees, distances and accuracies metres, speeds m/s, angles degrees true [0, 360). Unknown values are NULL.

CREATE EXTENSION IF NOT EXISTS postgis;

-- gpslog's times (milliseconds since 1970, UTC) and back, exactly: whole seconds through to_timestamp, the rest
-- as an interval (a double of milliseconds would round far from 1970).
CREATE FUNCTION gpslog_time(ms bigint) RETURNS timestamptz LANGUAGE sql STABLE STRICT PARALLEL SAFE
    AS $$ SELECT to_timestamp(div(ms, 1000)) + mod(ms, 1000) * interval '1 millisecond' $$;
CREATE FUNCTION gpslog_ms(t timestamptz) RETURNS bigint LANGUAGE sql STABLE STRICT PARALLEL SAFE
    AS $$ SELECT (extract(epoch FROM t) * 1000)::bigint $$;

-- One row per session: recorded or imported ones pushed by `gpslog sync` (origin 'sync HOST'), and the sessions
-- `serve --store` makes for each device (origin 'serve').
CREATE TABLE sessions (
    id           uuid        PRIMARY KEY,
    name         text        NOT NULL CONSTRAINT session_name_not_empty CHECK (length(btrim(name)) > 0),
    start_time   timestamptz NOT NULL,
    -- NULL while the session is recording.
    end_time     timestamptz CONSTRAINT session_ends_after_start CHECK (end_time IS NULL OR end_time >= start_time),
    -- Overland's trip mode (walk, car, boat...).
    mode         text,
    is_trip      boolean     NOT NULL DEFAULT false,
    -- The device the session belongs to: 'overland:DEVICE' (' trip START' for one of its trips), 'owntracks:USER/DEVICE'.
    receiver     text,
    -- Where the rows come from: 'serve', or 'sync ' and the machine that pushed them.
    origin       text        NOT NULL,
    -- The track: its points (not marks, not heading changes) in time order; NULL under two points.
    track        geometry(LineString, 4326),
    point_count  integer     NOT NULL DEFAULT 0,
    -- The time of the track's last point (a write of later points appends to the track, an earlier one rebuilds it).
    track_end    timestamptz,
    -- True while entries came in that the track does not show yet (a sync between its batches).
    track_outdated boolean   NOT NULL DEFAULT false,
    updated_at   timestamptz NOT NULL DEFAULT now()
);
-- Two serve processes receiving the first payload of a device at once create one session: the second one's insert
-- meets this index and reads the first one's row.
CREATE UNIQUE INDEX sessions_by_receiver ON sessions (receiver) WHERE origin = 'serve';
CREATE INDEX sessions_track ON sessions USING gist (track);
CREATE INDEX sessions_start ON sessions (start_time);

-- One row per gpslog entry: track points, marks (marked) and heading changes (is_heading_changed).
CREATE TABLE entries (
    -- gpslog's EntryID.
    id                  uuid             PRIMARY KEY,
    session_id          uuid             NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    time                timestamptz      NOT NULL,
    latitude            double precision NOT NULL CONSTRAINT latitude_in_range CHECK (latitude BETWEEN -90 AND 90),
    longitude           double precision NOT NULL
        CONSTRAINT longitude_in_range CHECK (longitude BETWEEN -180 AND 180),
    -- Metres above mean sea level.
    altitude            double precision,
    horizontal_accuracy double precision,
    vertical_accuracy   double precision,
    speed               double precision,
    course              double precision,
    address             text,
    marked              boolean          NOT NULL DEFAULT false,
    -- A mark's label.
    label               text,
    instance_count      integer          NOT NULL DEFAULT 1,
    heading             double precision,
    is_heading_changed  boolean          NOT NULL DEFAULT false,
    heading_time        timestamptz,
    satellites          integer,
    hdop                double precision,
    vdop                double precision,
    pdop                double precision,
    fix_mode            smallint,
    speed_accuracy      double precision,
    course_accuracy     double precision,
    motion              text[],
    battery_state       text,
    battery_level       double precision,
    device_id           text,
    wifi                text,
    starts_segment      boolean          NOT NULL DEFAULT false,
    monitoring          smallint,
    report_trigger      text,
    in_regions          text[],
    tag                 text,
    is_poi              boolean          NOT NULL DEFAULT false,
    -- True for a location `serve --store` received: one per device and time (see entries_received_once).
    received            boolean          NOT NULL DEFAULT false,
    geom                geometry(Point, 4326) NOT NULL
        GENERATED ALWAYS AS (ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)) STORED
);
-- A session's entries in time order (sync, the track, QGIS's per-session filters).
CREATE INDEX entries_session_time ON entries (session_id, time);
CREATE INDEX entries_geom ON entries USING gist (geom);
-- A received location whose session holds one at the same time is a resent payload: refused, even when two serve
-- processes store the same payload at once.
CREATE UNIQUE INDEX entries_received_once ON entries (session_id, time) WHERE received;

-- The marks: entries a user marked (gpslog mark, an OwnTracks manual location or POI).
CREATE VIEW marks AS
    SELECT id, session_id, time, label, is_poi, latitude, longitude, altitude, address, geom
    FROM entries WHERE marked;

-- Region transitions (OwnTracks' enter and leave, `record --regions`).
CREATE TABLE transitions (
    id                  bigint           GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id          uuid             NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    region_name         text             NOT NULL,
    -- OwnTracks' rid; '' when the device gave none (then region_created tells the region).
    region_id           text             NOT NULL,
    region_created      timestamptz      NOT NULL,
    region_latitude     double precision,
    region_longitude    double precision,
    region_radius       double precision,
    event               text             NOT NULL CONSTRAINT event_known CHECK (event IN ('enter', 'leave')),
    time                timestamptz      NOT NULL,
    latitude            double precision NOT NULL,
    longitude           double precision NOT NULL,
    horizontal_accuracy double precision,
    report_trigger      text,
    geom                geometry(Point, 4326) NOT NULL
        GENERATED ALWAYS AS (ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)) STORED,
    CONSTRAINT transition_once UNIQUE (session_id, time, event, region_id, region_created)
);
CREATE INDEX transitions_geom ON transitions USING gist (geom);

-- Visits: an arrival, and its departure once known (Overland's visit records, `record --stays`).
CREATE TABLE visits (
    id                  bigint           GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id          uuid             NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    arrival             timestamptz      NOT NULL,
    departure           timestamptz,
    latitude            double precision NOT NULL,
    longitude           double precision NOT NULL,
    horizontal_accuracy double precision NOT NULL,
    address             text,
    geom                geometry(Point, 4326) NOT NULL
        GENERATED ALWAYS AS (ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)) STORED,
    CONSTRAINT visit_once UNIQUE (session_id, arrival)
);
CREATE INDEX visits_geom ON visits USING gist (geom);

-- What serve keeps of each OwnTracks device beside its session: its waypoints (regions), card and last will.
CREATE TABLE received_waypoints (
    id          bigint           GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    device      text             NOT NULL,
    region_id   text             NOT NULL,
    description text             NOT NULL,
    latitude    double precision,
    longitude   double precision,
    radius      double precision,
    created_at  timestamptz      NOT NULL,
    received_at timestamptz      NOT NULL,
    -- A waypoint with a rid is known by it (a later tst replaces it); without one ('') by its tst.
    CONSTRAINT waypoint_once UNIQUE (device, region_id, created_at)
);
CREATE UNIQUE INDEX received_waypoints_by_rid ON received_waypoints (device, region_id) WHERE region_id <> '';

CREATE TABLE received_devices (
    device              text        PRIMARY KEY,
    card_name           text,
    card_face           bytea,
    card_tracker_id     text,
    card_received_at    timestamptz,
    last_will_at        timestamptz,
    last_will_connected timestamptz
);
