-- Migration 2: a received location is a repeat when its device's session holds one at the same time AND the same
-- place (a phone re-sending a batch it had no answer for sends the very same points). Two places at one time are both
-- kept, as `import` keeps them: OwnTracks' times are whole seconds, and a phone may report twice in one.
DROP INDEX entries_received_once;
CREATE UNIQUE INDEX entries_received_once ON entries (session_id, time, latitude, longitude) WHERE received;
