-- Version 8. Who stored what: the client (its address, keyed as the
-- per-client limits key it) that created a match or a tournament, counted
-- against the storage quota of that client. NULL for what the operator (the
-- admin key), the tournaments' directors (a tournament's games) or a
-- server before this version created: no client's.
ALTER TABLE matches ADD COLUMN owner TEXT;
ALTER TABLE tournaments ADD COLUMN owner TEXT;
CREATE INDEX matches_by_owner ON matches (owner) WHERE owner IS NOT NULL;
CREATE INDEX tournaments_by_owner ON tournaments (owner) WHERE owner IS NOT NULL;
