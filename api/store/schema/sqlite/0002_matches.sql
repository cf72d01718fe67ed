-- Version 2. Stored matches. A match is its start position plus its moves;
-- the `position`, `ply` and `status` columns are the state after the last
-- move, written in the same transaction as the move (a cache that replaying
-- the moves reproduces). Tokens are SHA-256 hashes only.
CREATE TABLE matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    start_position TEXT NOT NULL,
    position TEXT NOT NULL,
    ply INTEGER NOT NULL DEFAULT 0 CHECK (ply >= 0),
    version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
    status TEXT NOT NULL DEFAULT 'in_progress'
        CHECK (status IN ('in_progress', 'finished', 'abandoned')),
    ending TEXT CHECK (ending IN ('outcome', 'resignation', 'abandoned', 'bot_limit')),
    resigned_seat INTEGER,
    admin_token_hash BLOB NOT NULL CHECK (length(admin_token_hash) = 32),
    CHECK ((status = 'in_progress') = (ending IS NULL))
);
CREATE INDEX matches_by_status ON matches (status, id);
CREATE TABLE seats (
    match_id INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat INTEGER NOT NULL CHECK (seat >= 0),
    name TEXT NOT NULL,
    bot TEXT,
    token_hash BLOB CHECK (token_hash IS NULL OR length(token_hash) = 32),
    PRIMARY KEY (match_id, seat),
    CHECK ((bot IS NULL) = (token_hash IS NOT NULL))
);
CREATE TABLE moves (
    match_id INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    ply INTEGER NOT NULL CHECK (ply >= 0),
    seat INTEGER NOT NULL,
    path TEXT NOT NULL,
    played_at TEXT NOT NULL,
    PRIMARY KEY (match_id, ply),
    FOREIGN KEY (match_id, seat) REFERENCES seats (match_id, seat)
);
