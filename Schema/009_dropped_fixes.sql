-- Migration 9: what a recording refused before sampling, by reason (see FixGate): fixes without a position, fixes
-- whose time went backwards or jumped ahead, fixes implying an impossible speed. NULL: the session was not recorded
-- through the gate (an import of GPX, a session from serve).
ALTER TABLE Sessions ADD COLUMN DroppedPosition INTEGER CONSTRAINT dropped_position_not_negative CHECK (DroppedPosition >= 0);
ALTER TABLE Sessions ADD COLUMN DroppedTime INTEGER CONSTRAINT dropped_time_not_negative CHECK (DroppedTime >= 0);
ALTER TABLE Sessions ADD COLUMN DroppedSpeed INTEGER CONSTRAINT dropped_speed_not_negative CHECK (DroppedSpeed >= 0);
