-- Version 4. Forfeits stored as forfeits. A tournament entrant that
-- missed its deadline `max_timeouts` times in a game forfeits it; version
-- 3 stored that as a resignation. Now a match ends by `forfeit` (two
-- seats; with more the forfeiter leaves the game as a resigner does and
-- the others play on), and every forfeit has a row: the seat, the ply,
-- why (`timeouts`; `withdrawn`, an entrant the organiser withdrew;
-- `absent`, an entrant whose turns are forfeited at once) and, for
-- timeouts, how many.
--
-- SQLite cannot change a CHECK constraint in place: `matches` is rebuilt
-- (https://sqlite.org/lang_altertable.html#otheralter). `migrate` runs this
-- with foreign keys off and checks them (PRAGMA foreign_key_check) before
-- the commit: with them on, dropping `matches` would delete the seats,
-- moves and timeouts of every match (ON DELETE CASCADE). The new table is
-- made first, then the old one dropped and the new one renamed, so the
-- references of `seats`, `moves`, `timeouts` and `tournament_games` to
-- `matches` stay as they are (in that order, a rename rewrites no other
-- table's references, whatever `legacy_alter_table` says).
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
        CHECK (ending IN ('outcome', 'resignation', 'forfeit', 'abandoned', 'bot_limit')),
    resigned_seat INTEGER,
    admin_token_hash BLOB NOT NULL CHECK (length(admin_token_hash) = 32),
    CHECK ((status = 'in_progress') = (ending IS NULL))
);
INSERT INTO new_matches (id, created_at, updated_at, start_position, position, ply, version,
                         status, ending, resigned_seat, admin_token_hash)
    SELECT id, created_at, updated_at, start_position, position, ply, version,
           status, ending, resigned_seat, admin_token_hash
    FROM matches;
-- Ids are never reused: the new table keeps the old one's counter (which
-- may be past the highest id left).
DELETE FROM sqlite_sequence WHERE name = 'new_matches';
INSERT INTO sqlite_sequence (name, seq)
    SELECT 'new_matches', seq FROM sqlite_sequence WHERE name = 'matches';
DROP TABLE matches;
ALTER TABLE new_matches RENAME TO matches;
CREATE INDEX matches_by_status ON matches (status, id);

CREATE TABLE forfeits (
    match_id INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat INTEGER NOT NULL CHECK (seat >= 0),
    ply INTEGER NOT NULL CHECK (ply >= 0),
    reason TEXT NOT NULL CHECK (reason IN ('timeouts', 'withdrawn', 'absent')),
    timeouts INTEGER CHECK (timeouts >= 1),
    recorded_at TEXT NOT NULL,
    PRIMARY KEY (match_id, seat),
    FOREIGN KEY (match_id, seat) REFERENCES seats (match_id, seat),
    CHECK ((reason = 'timeouts') = (timeouts IS NOT NULL))
);

-- The forfeits version 3 stored as resignations. They are told apart
-- exactly: a seat forfeited in the same write as its `max_timeouts`-th
-- timeout in the game, and no timeout is recorded for a seat once it has
-- left the game (so a seat that resigned by itself has fewer); its
-- forfeit is at the ply of that last timeout.
INSERT INTO forfeits (match_id, seat, ply, reason, timeouts, recorded_at)
    SELECT t.match_id, t.seat, MAX(t.ply), 'timeouts', COUNT(*), MAX(t.recorded_at)
    FROM timeouts t
    JOIN tournament_games g ON g.match_id = t.match_id
    JOIN tournaments r ON r.id = g.tournament_id
    GROUP BY t.match_id, t.seat, r.max_timeouts
    HAVING COUNT(*) >= r.max_timeouts;
UPDATE matches SET ending = 'forfeit'
    WHERE ending = 'resignation'
      AND EXISTS (SELECT 1 FROM forfeits f
                  WHERE f.match_id = matches.id AND f.seat = matches.resigned_seat);
