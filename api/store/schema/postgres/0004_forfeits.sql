-- Version 4, for PostgreSQL. Forfeits stored as forfeits. A tournament
-- entrant that missed its deadline `max_timeouts` times in a game forfeits
-- it; version 3 stored that as a resignation. Now a match ends by
-- `forfeit` (two seats; with more the forfeiter leaves the game as a
-- resigner does and the others play on), and every forfeit has a row: the
-- seat, the ply, why (`timeouts`; `withdrawn`, an entrant the organiser
-- withdrew; `absent`, an entrant whose turns are forfeited at once) and,
-- for timeouts, how many.
ALTER TABLE matches DROP CONSTRAINT matches_ending_check;
ALTER TABLE matches ADD CONSTRAINT matches_ending_check
    CHECK (ending IN ('outcome', 'resignation', 'forfeit', 'abandoned', 'bot_limit'));

CREATE TABLE forfeits (
    match_id BIGINT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat BIGINT NOT NULL CHECK (seat >= 0),
    ply BIGINT NOT NULL CHECK (ply >= 0),
    reason TEXT NOT NULL CHECK (reason IN ('timeouts', 'withdrawn', 'absent')),
    timeouts BIGINT CHECK (timeouts >= 1),
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
