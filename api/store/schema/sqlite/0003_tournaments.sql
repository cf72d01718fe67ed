-- Version 3. Tournaments. A tournament is its settings, its entrants and its
-- schedule (one row per game, with the entrant of each seat); a game that
-- has started links to the match that plays it. An open entrant's token hash
-- is also its seats' token hash in every match it plays, so one token plays
-- all its games. Timeouts are stored one row each; deadlines themselves are
-- derived (see `tournaments::referee`).
CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    name TEXT NOT NULL,
    start_position TEXT NOT NULL,
    format TEXT NOT NULL CHECK (format IN ('round_robin', 'gauntlet')),
    games_per_pairing INTEGER NOT NULL CHECK (games_per_pairing >= 1),
    move_ms INTEGER NOT NULL CHECK (move_ms >= 1),
    max_timeouts INTEGER NOT NULL CHECK (max_timeouts >= 1),
    concurrency INTEGER NOT NULL CHECK (concurrency >= 1),
    points TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'waiting'
        CHECK (status IN ('waiting', 'running', 'paused', 'finished', 'abandoned')),
    version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
    admin_token_hash BLOB NOT NULL CHECK (length(admin_token_hash) = 32)
);
CREATE INDEX tournaments_by_status ON tournaments (status, id);
CREATE TABLE entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    entrant INTEGER NOT NULL CHECK (entrant >= 0),
    name TEXT NOT NULL,
    bot TEXT,
    token_hash BLOB CHECK (token_hash IS NULL OR length(token_hash) = 32),
    reference INTEGER NOT NULL DEFAULT 0 CHECK (reference IN (0, 1)),
    PRIMARY KEY (tournament_id, entrant),
    CHECK ((bot IS NULL) = (token_hash IS NOT NULL))
);
CREATE UNIQUE INDEX entrants_by_token ON entrants (token_hash) WHERE token_hash IS NOT NULL;
CREATE TABLE tournament_games (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    game INTEGER NOT NULL CHECK (game >= 0),
    entrants TEXT NOT NULL,
    match_id INTEGER UNIQUE REFERENCES matches (id),
    PRIMARY KEY (tournament_id, game)
);
CREATE TABLE timeouts (
    match_id INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    ply INTEGER NOT NULL CHECK (ply >= 0),
    seat INTEGER NOT NULL CHECK (seat >= 0),
    recorded_at TEXT NOT NULL,
    PRIMARY KEY (match_id, ply, seat)
);
