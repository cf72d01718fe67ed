-- Version 7. A match whose built-in bot cannot move ends by
-- `bot_unavailable` (abandoned, no result; `resigned_seat` names the bot's
-- seat): a `perfect` seat on a server started again without its game's
-- table. Version 6 had it play greedy moves under its name.
--
-- SQLite cannot change a CHECK constraint in place: `matches` is rebuilt as
-- version 4 did (foreign keys off and checked before the commit; the new
-- table made first, the old one dropped and the new one renamed, the
-- counter of ids kept).
CREATE TABLE new_matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    start_position TEXT NOT NULL,
    position TEXT NOT NULL,
    ply INTEGER NOT NULL DEFAULT 0 CHECK (ply >= 0),
    version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
    status TEXT NOT NULL DEFAULT 'in_progress'
        CHECK (status IN ('in_progress', 'finished', 'abandoned')),
    ending TEXT
        CHECK (ending IN ('outcome', 'resignation', 'forfeit', 'abandoned', 'bot_limit',
                          'bot_unavailable')),
    resigned_seat INTEGER,
    admin_token_hash BLOB NOT NULL CHECK (length(admin_token_hash) = 32),
    CHECK ((status = 'in_progress') = (ending IS NULL))
);
INSERT INTO new_matches (id, created_at, updated_at, start_position, position, ply, version,
                         status, ending, resigned_seat, admin_token_hash)
    SELECT id, created_at, updated_at, start_position, position, ply, version,
           status, ending, resigned_seat, admin_token_hash
    FROM matches;
DELETE FROM sqlite_sequence WHERE name = 'new_matches';
INSERT INTO sqlite_sequence (name, seq)
    SELECT 'new_matches', seq FROM sqlite_sequence WHERE name = 'matches';
DROP TABLE matches;
ALTER TABLE new_matches RENAME TO matches;
CREATE INDEX matches_by_status ON matches (status, id);
