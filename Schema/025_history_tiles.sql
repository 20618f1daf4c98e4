-- Migration 25: the history map's kept tile pyramid (`serve`'s /history, `gpslog plot --all`).
--
-- Web Mercator tiles (the map's XYZ numbering). The deepest kept level is zoom 13 (about 19 m a pixel at the
-- equator, 12 m in Europe); deeper zooms draw the track from the entries themselves.
--
-- HistorySpans: which sessions passed through which zoom-13 tile, and when: one row per visit (a session's run of
-- track points through the tile, and the points just before and after it, so that the lines into and out of the
-- tile are drawn too). A write adds to the visit's row (or starts one when the session was away for more than ten
-- minutes): one row per touched tile per visit, not per point, so the recorder pays a few rows an hour. A tile is
-- drawn from the entries of its visits through the (SessionKey, TimeStamp) index: no spatial index is needed.
--
-- HistoryTiles: a drawn tile, kept until a write touches it: a 256x256 grid of counts (how many line pixels of
-- the zoom-13 raster fall in each pixel), for each scope (-1: every session, as an admin sees them; else the
-- user key of Sessions.Owner). Stored sparse, not deflated: (pixel index u16, count u32) little-endian for each
-- pixel that has a track, six bytes a pixel; a track tile has a few hundred to a few thousand such pixels, so a
-- tile is a few kilobytes without a compression library, and a missing row is a tile to draw (lazily, when asked:
-- an import does not draw tiles nobody looks at). Zoom 13 is drawn from the spans, each level above from its four
-- children.
--
-- HistoryStale: sessions whose spans must be counted again from their entries before the next tile is drawn (a
-- point written into the middle of a track, a clean, a prune, a split or merge; and every session of a database
-- made before this migration).

CREATE TABLE HistorySpans (
    X          INTEGER NOT NULL,
    Y          INTEGER NOT NULL,
    Session    INTEGER NOT NULL REFERENCES Sessions (Key) ON DELETE CASCADE,
    FirstTime  INTEGER NOT NULL,
    LastTime   INTEGER NOT NULL,
    PRIMARY KEY (X, Y, Session, FirstTime)
) STRICT, WITHOUT ROWID;
CREATE INDEX HistorySpans_Session ON HistorySpans (Session);

CREATE TABLE HistoryTiles (
    Z       INTEGER NOT NULL,
    X       INTEGER NOT NULL,
    Y       INTEGER NOT NULL,
    Scope   INTEGER NOT NULL,
    Counts  BLOB    NOT NULL,
    PRIMARY KEY (Z, X, Y, Scope)
) STRICT, WITHOUT ROWID;

CREATE TABLE HistoryStale (
    Session INTEGER PRIMARY KEY REFERENCES Sessions (Key) ON DELETE CASCADE
) STRICT;

INSERT INTO HistoryStale (Session) SELECT Key FROM Sessions;

-- A deleted session, or one with a track given to another owner, changes tiles anywhere: rare, so every kept tile
-- goes (they are drawn again when asked). A session serve has just made gets its owner before it has a track.
CREATE TRIGGER Sessions_history_delete AFTER DELETE ON Sessions BEGIN
    DELETE FROM HistoryTiles;
END;
CREATE TRIGGER Sessions_history_owner AFTER UPDATE OF Owner ON Sessions
WHEN OLD.Owner IS NOT NEW.Owner AND EXISTS (SELECT 1 FROM HistorySpans WHERE Session = NEW.Key)
BEGIN
    DELETE FROM HistoryTiles;
END;
