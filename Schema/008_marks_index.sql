-- Migration 8: an index of the marks alone (a partial index: track points are not in it, so it costs nothing per
-- recorded fix). Exports, `show` and GPX's waypoints read a session's marks first; without it that query walked
-- every row of the session (0.2 s of a 1M-entry export).
CREATE INDEX Entries_Marks ON Entries (Session, TimeStamp) WHERE Marked = 1;
