-- Migration 7: sending (upload, live sending while recording) and receiving (gpslog serve).

-- Sessions that `gpslog serve` receives belong to a device: 'overland:DEVICE' or 'owntracks:USER/DEVICE', plus
-- ' trip START' when the payload carries an Overland trip (a new session per trip). NULL for recorded and
-- imported sessions. One session per receiver key.
ALTER TABLE Sessions ADD COLUMN Receiver TEXT;
CREATE UNIQUE INDEX sessions_by_receiver ON Sessions (Receiver) WHERE Receiver IS NOT NULL;

-- What one destination (format and URL, without credentials) has confirmed of one session: every track point up
-- to and including (LastTimeStamp, LastKey) in track order (TimeStamp, Key). It moves only after the server
-- confirms a batch, so a re-run, or a run after kill -9, resumes after the last confirmed batch. Distance is the
-- track length up to that point (Overland's trip distance), so a resumed upload need not read the whole track.
CREATE TABLE Uploads (
    Session       TEXT    NOT NULL REFERENCES Sessions (ID) ON DELETE CASCADE,
    Destination   TEXT    NOT NULL,
    LastTimeStamp INTEGER NOT NULL,
    LastKey       INTEGER NOT NULL,
    Sent          INTEGER NOT NULL CONSTRAINT sent_not_negative CHECK (Sent >= 0),
    Batches       INTEGER NOT NULL CONSTRAINT batches_not_negative CHECK (Batches >= 0),
    Distance      REAL    NOT NULL CONSTRAINT distance_not_negative CHECK (Distance >= 0),
    SentAt        INTEGER NOT NULL,
    PRIMARY KEY (Session, Destination)
) STRICT;
