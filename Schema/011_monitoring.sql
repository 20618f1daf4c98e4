-- Migration 11: OwnTracks' monitoring mode an entry was recorded in (its numbers: -1 quiet, 0 manual,
-- 1 significant, 2 move; NULL: GPS Log's interval sampling) and what made it (OwnTracks' `t`: p ping, c circular
-- region, C follow region, b beacon, r reportLocation, u user, t timer, v frequent locations; NULL: automatic),
-- so that OwnTracks exports carry `m` and `t` truthfully.
ALTER TABLE Entries ADD COLUMN Monitoring INTEGER
    CONSTRAINT monitoring_known CHECK (Monitoring IN (-1, 0, 1, 2));
ALTER TABLE Entries ADD COLUMN ReportTrigger TEXT
    CONSTRAINT report_trigger_known CHECK (ReportTrigger IN ('p', 'c', 'C', 'b', 'r', 'u', 't', 'v'));
