-- Migration 28: the history map's visits (HistorySpans) per zoom-16 tile instead of zoom 13.
--
-- A tile deeper than zoom 13 is drawn from the entries of the visits to the tiles under or around it. Kept per
-- zoom-13 tile, a zoom-18 tile read every point of every pass through its zoom-13 parent (a 3 km square: about
-- 600 points a pass at walking or cycling speed, and hundreds of passes where a year of tracks overlaps); per
-- zoom-16 tile (370 m) a pass is about 75 points, and a zoom-14 or zoom-15 tile reads only the passes through its
-- own 16 or 4 zoom-16 tiles. A track crosses about eight zoom-16 tiles for each zoom-13 tile, so there are about
-- eight times the rows: still one row per tile per visit, a few kilobytes an hour of recording. The kept tiles
-- stay at zoom 13 and above, drawn as before; X and Y are now zoom-16 tile numbers.
--
-- The visits are counted again from the entries before the next tile is drawn (every session is marked stale;
-- the count reads each session's track points once, without holding the write lock). A file import marks its
-- session in HistoryStale the same way instead of keeping its visits batch by batch (see Store+HistoryVisits.swift).
DELETE FROM HistorySpans;
INSERT OR IGNORE INTO HistoryStale (Session) SELECT Key FROM Sessions;
