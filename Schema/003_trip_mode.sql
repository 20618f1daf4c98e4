-- Migration 3: the trip mode of a session (Overland's trip modes), used by exports and uploads.
ALTER TABLE Sessions ADD COLUMN Mode TEXT CONSTRAINT mode_is_known CHECK (Mode IN (
    'walk', 'run', 'bicycle', 'car', 'taxi', 'bus', 'tram', 'train', 'metro',
    'gondola', 'monorail', 'sleigh', 'plane', 'boat', 'scooter'));
