-- Version 6. When an absent entrant came back (asked for its turns again):
-- its missed turns in a row are counted from then, so one more timeout
-- does not make it absent again at once.
ALTER TABLE entrants ADD COLUMN returned_at TEXT;
