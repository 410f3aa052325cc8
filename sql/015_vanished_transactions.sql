-- 015: transactions the upstream no longer shows (docs/sync.md, "The closing count audit").
--
-- The closing count audit reads a range again where the upstream counts fewer rows than the
-- mirror holds; a row it does not see there is gone from the upstream. The mirror keeps the row
-- (finance keeps what was read), and lists it here: the audit leaves listed rows out of the
-- mirror's counts. Counted, such a row kept its range one above the upstream for good, and a row
-- posted late later with the same status anywhere in that history brought the counts level:
-- the late row was never read. A read that sees a listed row again takes it off the list.
CREATE TABLE vanished_transactions (
  transaction_id TEXT PRIMARY KEY,
  merchant_id    TEXT NOT NULL,
  created_at     TEXT NOT NULL,
  run_id         TEXT NOT NULL,   -- the run that found it gone
  found_at       TEXT NOT NULL    -- when, on this host's clock
);
CREATE INDEX vanished_transactions_by_time ON vanished_transactions (merchant_id, created_at);
