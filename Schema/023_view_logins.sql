-- Migration 23: logins to `gpslog serve`'s web view, and links that share one session.
--
-- A login is a cookie of 256 random bits; only its SHA-256 is kept (as for device tokens, a slow hash would add
-- nothing: the value cannot be guessed). User is the person who logged in with their password; NULL for a login
-- with the serve token (or --view-token-file), the one-person setup, which sees everything. A login ends at
-- ExpiresAt, at /logout, or when its user is removed.

CREATE TABLE ViewLogins (
    Key        INTEGER PRIMARY KEY,
    TokenHash  BLOB    NOT NULL CONSTRAINT view_login_hash_taken UNIQUE
        CONSTRAINT view_login_hash_is_sha256 CHECK (length(TokenHash) = 32),
    User       INTEGER REFERENCES Users (Key) ON DELETE CASCADE,
    CreatedAt  INTEGER NOT NULL,
    ExpiresAt  INTEGER NOT NULL
) STRICT;

-- A share link (`gpslog share SESSION`): its token's SHA-256 opens that one session, read-only, without a login,
-- until ExpiresAt or until it is revoked. Deleting the session deletes its links.
CREATE TABLE SessionShares (
    Key        INTEGER PRIMARY KEY,
    TokenHash  BLOB    NOT NULL CONSTRAINT share_hash_taken UNIQUE
        CONSTRAINT share_hash_is_sha256 CHECK (length(TokenHash) = 32),
    Session    INTEGER NOT NULL REFERENCES Sessions (Key) ON DELETE CASCADE,
    CreatedAt  INTEGER NOT NULL,
    ExpiresAt  INTEGER NOT NULL,
    RevokedAt  INTEGER
) STRICT;
CREATE INDEX SessionShares_Session ON SessionShares (Session);
