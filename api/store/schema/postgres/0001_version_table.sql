-- Version 1, for PostgreSQL (64-bit integers, identity ids, BYTEA). The
-- version table itself is created by `migrate`; nothing else.
SELECT 1;
