-- Version 7, for PostgreSQL. A match whose built-in bot cannot move ends
-- by `bot_unavailable` (abandoned, no result; `resigned_seat` names the
-- bot's seat): a `perfect` seat on a server started again without its
-- game's table. Version 6 had it play greedy moves under its name.
ALTER TABLE matches DROP CONSTRAINT matches_ending_check;
ALTER TABLE matches ADD CONSTRAINT matches_ending_check
    CHECK (ending IN ('outcome', 'resignation', 'forfeit', 'abandoned', 'bot_limit',
                      'bot_unavailable'));
