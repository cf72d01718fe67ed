-- Version 1. The version table itself is created by `migrate`; nothing else.
SELECT 1;
