-- 022: sync_freshness names the run recorded last that tried each merchant, not the one with the
-- greatest `started_at`.
--
-- `started_at` is the host's clock. A run started while it was ahead (a host an hour fast, set
-- back by NTP before the next night) kept its place as the newest: the view showed that run,
-- `done`, as each merchant's last, while the night after it had failed, and "did last night's
-- sync finish?" (docs/analysts.md) was answered yes. Runs are recorded as they start, one at a
-- time under the mirror lock, so the order they were recorded in (`sync_runs.rowid`) is the
-- order they ran in, whatever the clock said. The columns are unchanged, in the same order.
DROP VIEW sync_freshness;

CREATE VIEW sync_freshness AS
-- One row per merchant: how fresh its part of the mirror is. Look here first in the morning:
-- the checks are only as good as the last sync.
--   cards / cards_read_at: cards mirrored and when the newest card list was read.
--   transactions_synced_to: the end of the newest fully synced time range of transactions;
--     synced_ranges > 1 means a gap remains (a run stopped part-way; the next run fills it).
--   balance_read_at: the newest merchant balance snapshot.
--   quarantined: upstream records that failed validation and have no valid version yet.
--   last_run_*: the run recorded last that tried this merchant (a window of it in
--     sync_windows, or its result in the run's summary, even one refused before any read); its
--     outcome is the whole run's: 'done', or 'incomplete' / 'interrupted' / 'failed' /
--     'crashed' / 'running'.
--   last_run_merchant_outcome: how this merchant's sync ended in that run: 'done',
--     'incomplete', 'interrupted', 'unauthorized' (the upstream refused its key); NULL while the
--     run is running or when it kept no summary (it crashed).
--   last_run_merchant_error: why, when it did not end 'done' ("CODE: message").
--   last_reconciled_at: the newest reconciliation of the mirror (all merchants).
WITH entries AS MATERIALIZED (
  -- Each merchant's result in each run's summary (a JSON array: sync-result.ts), read once. Read
  -- by path from the summary, so an entry of another shape yields NULLs, not an error.
  SELECT s.run_id, s.rowid AS run_seq, e.key,
         json_extract(s.summary, e.fullkey || '.merchantId') AS merchant_id,
         json_extract(s.summary, e.fullkey || '.source') AS source,
         json_extract(s.summary, e.fullkey || '.outcome') AS outcome,
         json_extract(s.summary, e.fullkey || '.error.code') AS error_code,
         json_extract(s.summary, e.fullkey || '.error.message') AS error_message
  FROM sync_runs s
  JOIN json_each(CASE WHEN json_valid(s.summary) THEN
                   CASE WHEN json_type(s.summary) = 'array' THEN s.summary END END) e
),
results AS MATERIALIZED (
  -- The merchant each result is about: by the id the run learnt, else by the configured name
  -- it was read under: the merchant that name read last (a name given to another account
  -- leaves the old one's row with it, and that account was not tried).
  SELECT x.run_id, x.run_seq, x.key, m.merchant_id, x.outcome, x.error_code, x.error_message
  FROM entries x
  JOIN merchants m
    ON m.merchant_id = x.merchant_id
    OR (x.merchant_id IS NULL AND m.source = x.source
        AND m.updated_at = (SELECT max(n.updated_at) FROM merchants n WHERE n.source = x.source))
),
tried AS MATERIALIZED (
  -- Per merchant, the newest run naming it in its summary (every run that ends names each
  -- merchant it tried), and the newest that wrote a window of it (a run still going, or one
  -- that crashed, has only its windows): the runs newest first, each looked up in sync_windows
  -- by its run id, up to the first that has one.
  SELECT m.merchant_id,
         (SELECT x.run_id FROM results x WHERE x.merchant_id = m.merchant_id
          ORDER BY x.run_seq DESC LIMIT 1) AS by_summary,
         (SELECT s.run_id FROM sync_runs s
          WHERE EXISTS (SELECT 1 FROM sync_windows w
                        WHERE w.run_id = s.run_id AND w.merchant_id = m.merchant_id)
          ORDER BY s.rowid DESC LIMIT 1) AS by_window
  FROM merchants m
),
last_runs AS MATERIALIZED (
  -- The newer of the two, and this merchant's result in it (the first, should it hold two).
  SELECT t.merchant_id, r.run_id,
         (SELECT x.key FROM results x WHERE x.run_id = r.run_id AND x.merchant_id = t.merchant_id
          ORDER BY x.key LIMIT 1) AS result_key
  FROM tried t
  LEFT JOIN sync_runs r ON r.run_id = (
    SELECT s.run_id FROM sync_runs s WHERE s.run_id IN (t.by_summary, t.by_window)
    ORDER BY s.rowid DESC LIMIT 1)
)
SELECT m.merchant_id, m.source, m.currency,
       (SELECT count(*) FROM cards c WHERE c.merchant_id = m.merchant_id) AS cards,
       (SELECT max(c.observed_at) FROM cards c WHERE c.merchant_id = m.merchant_id)
         AS cards_read_at,
       (SELECT max(p.end_at) FROM sync_progress p WHERE p.merchant_id = m.merchant_id)
         AS transactions_synced_to,
       (SELECT count(*) FROM sync_progress p WHERE p.merchant_id = m.merchant_id)
         AS synced_ranges,
       (SELECT max(b.observed_at) FROM merchant_balances b WHERE b.merchant_id = m.merchant_id)
         AS balance_read_at,
       (SELECT count(*) FROM quarantine q
        WHERE q.merchant_id = m.merchant_id AND q.resolved_at IS NULL) AS quarantined,
       r.run_id AS last_run_id, r.command AS last_run_command, r.outcome AS last_run_outcome,
       r.started_at AS last_run_started_at, r.finished_at AS last_run_finished_at,
       (SELECT max(rr.reconciled_at) FROM recon_runs rr) AS last_reconciled_at,
       mine.outcome AS last_run_merchant_outcome,
       coalesce(mine.error_code || ': ', '') || mine.error_message AS last_run_merchant_error
FROM merchants m
JOIN last_runs l ON l.merchant_id = m.merchant_id
LEFT JOIN sync_runs r ON r.run_id = l.run_id
LEFT JOIN results mine
  ON mine.run_id = l.run_id AND mine.merchant_id = m.merchant_id AND mine.key = l.result_key;
