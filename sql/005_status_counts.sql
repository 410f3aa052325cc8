-- 005: the count audit compares statuses, not only rows (docs/sync.md, "The closing count audit").
--
-- Each night the sync holds the mirror's counts per time range against the upstream's: how many
-- transactions, how many PENDING, how many COMPLETED. Adding `status` to the time index lets the
-- mirror count all three by reading the index alone, however long the history.
DROP INDEX transactions_by_time;
CREATE INDEX transactions_by_time ON transactions (merchant_id, created_at, status);
