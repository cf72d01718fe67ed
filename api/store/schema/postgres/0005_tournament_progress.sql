-- Version 5, for PostgreSQL. What a tournament keeps as it goes.
--
-- A game's outcome, written once when the director sees it end (its seats
-- with their timeouts and forfeits, its result naming entrants, each
-- seat's result as a number), as JSON: the standings and the schedule read
-- it instead of deriving it from the match again. NULL until then (a game
-- that ended while no director ran is derived from its match, as before).
-- A game is unplayed when an entrant of it was withdrawn before it began.
--
-- An entrant's presence: withdrawn by the organiser (its games under way
-- forfeited, those not started left unplayed), or absent since it missed
-- `max_timeouts` turns in a row (its turns forfeited at once until it
-- polls for its turns again).
ALTER TABLE tournament_games ADD COLUMN outcome TEXT;
ALTER TABLE tournament_games ADD COLUMN unplayed BIGINT NOT NULL DEFAULT 0
    CHECK (unplayed IN (0, 1));
ALTER TABLE entrants ADD COLUMN withdrawn_at TEXT;
ALTER TABLE entrants ADD COLUMN absent_since TEXT;
