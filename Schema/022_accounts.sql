-- Migration 22: people and devices on one `gpslog serve`. A user (a person) has devices (phones), each with its own
-- token; `serve` lets a token write only as its own device, and a received session belongs to the user whose device
-- it is (Sessions.Owner), so the web view can show each user their own sessions.
--
-- Names: a user's and a device's name are one word of letters, digits, '.', '_' and '-' (1 to 64 characters, not
-- starting with '.' or '-'): they are MQTT topic levels (owntracks/USER/DEVICE) and parts of Sessions.Receiver
-- ('owntracks:USER/DEVICE', 'overland:USER/DEVICE'), where '/', '+', '#', ':' and spaces would mean something else.
--
-- Tokens: only their SHA-256 is kept (32 bytes). A token is 256 random bits, so it cannot be guessed and a slow
-- password hash would add nothing but time to every request; passwords (people's, for the web view) are Argon2id
-- encoded strings ('$argon2id$v=19$m=...'), NULL for a user who only has devices.

CREATE TABLE Users (
    Key          INTEGER PRIMARY KEY,
    Name         TEXT    NOT NULL CONSTRAINT user_name_taken UNIQUE
        CONSTRAINT user_name_is_one_word CHECK (length(Name) BETWEEN 1 AND 64 AND Name NOT GLOB '*[^A-Za-z0-9._-]*'
            AND substr(Name, 1, 1) NOT IN ('.', '-')),
    -- Argon2id's encoded string; NULL: no password (no web view login).
    PasswordHash TEXT    CONSTRAINT password_hash_is_argon2id CHECK (PasswordHash IS NULL OR PasswordHash GLOB '$argon2id$*'),
    IsAdmin      INTEGER NOT NULL DEFAULT 0 CONSTRAINT is_admin_is_flag CHECK (IsAdmin IN (0, 1)),
    CreatedAt    INTEGER NOT NULL
) STRICT;

CREATE TABLE Devices (
    Key        INTEGER PRIMARY KEY,
    User       INTEGER NOT NULL REFERENCES Users (Key) ON DELETE CASCADE,
    Name       TEXT    NOT NULL
        CONSTRAINT device_name_is_one_word CHECK (length(Name) BETWEEN 1 AND 64 AND Name NOT GLOB '*[^A-Za-z0-9._-]*'
            AND substr(Name, 1, 1) NOT IN ('.', '-')),
    -- SHA-256 of the token.
    TokenHash  BLOB    NOT NULL CONSTRAINT token_hash_taken UNIQUE
        CONSTRAINT token_hash_is_sha256 CHECK (length(TokenHash) = 32),
    CreatedAt  INTEGER NOT NULL,
    -- Written at most once a minute by serve.
    LastUsedAt INTEGER,
    -- A revoked device's token is refused; the row stays, so its name and its sessions' owner stay known.
    RevokedAt  INTEGER,
    CONSTRAINT device_name_taken UNIQUE (User, Name)
) STRICT;

-- The user a received session belongs to: the USER of its Receiver's 'PROTOCOL:USER/DEVICE' when such a user exists
-- (set by the triggers below when serve makes the session, and by `user add` for the sessions received before);
-- NULL for recorded and imported sessions, and for devices of no user. Kept when the device is revoked; NULL again
-- when the user is removed (the sessions stay).
ALTER TABLE Sessions ADD COLUMN Owner INTEGER REFERENCES Users (Key) ON DELETE SET NULL;
CREATE INDEX Sessions_Owner ON Sessions (Owner) WHERE Owner IS NOT NULL;

-- Serve sets Receiver on the session it has just made (INSERT then UPDATE); either way the owner follows.
CREATE TRIGGER Sessions_owner_insert AFTER INSERT ON Sessions
WHEN NEW.Receiver IS NOT NULL AND NEW.Owner IS NULL
BEGIN
    UPDATE Sessions SET Owner = (SELECT u.Key FROM Users u WHERE u.Name = substr(
            substr(NEW.Receiver, instr(NEW.Receiver, ':') + 1), 1,
            instr(substr(NEW.Receiver, instr(NEW.Receiver, ':') + 1), '/') - 1))
    WHERE Key = NEW.Key AND instr(substr(NEW.Receiver, instr(NEW.Receiver, ':') + 1), '/') > 1;
END;

CREATE TRIGGER Sessions_owner_receiver AFTER UPDATE OF Receiver ON Sessions
WHEN NEW.Receiver IS NOT NULL AND NEW.Owner IS NULL
BEGIN
    UPDATE Sessions SET Owner = (SELECT u.Key FROM Users u WHERE u.Name = substr(
            substr(NEW.Receiver, instr(NEW.Receiver, ':') + 1), 1,
            instr(substr(NEW.Receiver, instr(NEW.Receiver, ':') + 1), '/') - 1))
    WHERE Key = NEW.Key AND instr(substr(NEW.Receiver, instr(NEW.Receiver, ':') + 1), '/') > 1;
END;
