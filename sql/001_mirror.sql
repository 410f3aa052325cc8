-- 001: the mirror of the upstream, and the job's own run and progress tables.
--
-- One row per upstream record, `merchant_id` on every row. Money keeps the exact decimal text
-- the upstream sent (`amount`, `fee`, `balance`, ...) and, beside it, an integer `*_minor`
-- column in minor units of the currency's ISO 4217 exponent. `*_minor` is NULL when the text
-- has more fractional digits than the currency allows, or the currency is unknown: the
-- reconciliation reports those as PRECISION_VIOLATION instead of guessing.
-- Timestamps are ISO 8601 UTC text with milliseconds, so they sort as text.

CREATE TABLE merchants (
  merchant_id   TEXT PRIMARY KEY,
  source        TEXT NOT NULL,             -- the configured name whose key reads this merchant
  base_url      TEXT NOT NULL,
  currency      TEXT,
  first_seen_at TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);

CREATE TABLE offerings (
  id                    TEXT PRIMARY KEY,
  merchant_id           TEXT NOT NULL,
  name                  TEXT NOT NULL,
  network               TEXT NOT NULL,
  type                  TEXT NOT NULL,
  currency              TEXT NOT NULL,
  min_load_amount       TEXT NOT NULL,
  min_load_amount_minor INTEGER,
  max_load_amount       TEXT NOT NULL,
  max_load_amount_minor INTEGER,
  issuance_fee          TEXT NOT NULL,
  issuance_fee_minor    INTEGER,
  deposit_fee_percent   TEXT NOT NULL,
  requires_holder       INTEGER NOT NULL,  -- 0 or 1
  version               INTEGER NOT NULL,  -- 1, then +1 each time the terms change
  first_seen_at         TEXT NOT NULL,
  updated_at            TEXT NOT NULL,     -- when the current version was first seen
  last_seen_at          TEXT NOT NULL
);

-- Every version of an offering's terms, as first seen.
CREATE TABLE offering_versions (
  id                    TEXT NOT NULL,
  version               INTEGER NOT NULL,
  merchant_id           TEXT NOT NULL,
  name                  TEXT NOT NULL,
  network               TEXT NOT NULL,
  type                  TEXT NOT NULL,
  currency              TEXT NOT NULL,
  min_load_amount       TEXT NOT NULL,
  min_load_amount_minor INTEGER,
  max_load_amount       TEXT NOT NULL,
  max_load_amount_minor INTEGER,
  issuance_fee          TEXT NOT NULL,
  issuance_fee_minor    INTEGER,
  deposit_fee_percent   TEXT NOT NULL,
  requires_holder       INTEGER NOT NULL,
  observed_at           TEXT NOT NULL,
  run_id                TEXT NOT NULL,
  PRIMARY KEY (id, version)
);

CREATE TABLE cards (
  card_id          TEXT PRIMARY KEY,
  merchant_id      TEXT NOT NULL,
  card_offering_id TEXT NOT NULL,
  last_four        TEXT NOT NULL,
  status           TEXT NOT NULL,
  balance          TEXT NOT NULL,
  balance_minor    INTEGER,
  currency         TEXT NOT NULL,
  created_at       TEXT NOT NULL,
  observed_at      TEXT NOT NULL,  -- when this status and balance were read
  first_seen_at    TEXT NOT NULL,
  updated_at       TEXT NOT NULL,  -- when a change of status or balance was last observed
  last_seen_run_id TEXT NOT NULL
);
CREATE INDEX cards_by_merchant ON cards (merchant_id, created_at);

-- A card's status and balance as each run found them: a row when first seen and whenever
-- either changed, so the value at any run is the latest row at or before it.
CREATE TABLE card_history (
  card_id       TEXT NOT NULL,
  merchant_id   TEXT NOT NULL,
  run_id        TEXT NOT NULL,
  status        TEXT NOT NULL,
  balance       TEXT NOT NULL,
  balance_minor INTEGER,
  observed_at   TEXT NOT NULL
);
CREATE INDEX card_history_by_card ON card_history (card_id, observed_at);

CREATE TRIGGER card_history_on_insert AFTER INSERT ON cards
BEGIN
  INSERT INTO card_history (card_id, merchant_id, run_id, status, balance, balance_minor, observed_at)
  VALUES (new.card_id, new.merchant_id, new.last_seen_run_id, new.status, new.balance,
          new.balance_minor, new.observed_at);
END;

CREATE TRIGGER card_history_on_change AFTER UPDATE OF status, balance ON cards
WHEN old.status IS NOT new.status OR old.balance IS NOT new.balance
BEGIN
  INSERT INTO card_history (card_id, merchant_id, run_id, status, balance, balance_minor, observed_at)
  VALUES (new.card_id, new.merchant_id, new.last_seen_run_id, new.status, new.balance,
          new.balance_minor, new.observed_at);
END;

CREATE TABLE transactions (
  transaction_id TEXT PRIMARY KEY,
  merchant_id    TEXT NOT NULL,
  card_id        TEXT NOT NULL,
  trade_no       TEXT NOT NULL,
  type           TEXT NOT NULL,
  status         TEXT NOT NULL,
  amount         TEXT NOT NULL,
  amount_minor   INTEGER,
  fee            TEXT NOT NULL,
  fee_minor      INTEGER,
  currency       TEXT NOT NULL,
  merchant_name  TEXT NOT NULL,
  created_at     TEXT NOT NULL,
  first_seen_at  TEXT NOT NULL,
  updated_at     TEXT NOT NULL,  -- when a change was last observed (first_seen_at until then)
  updated_run_id TEXT NOT NULL
);
CREATE INDEX transactions_by_time ON transactions (merchant_id, created_at);
CREATE INDEX transactions_by_card ON transactions (card_id, created_at);
-- The rows whose status may still move (reference-model section 4), re-checked every run.
CREATE INDEX transactions_unsettled ON transactions (merchant_id, created_at)
  WHERE status = 'PENDING' OR (status = 'COMPLETED' AND type IN ('PURCHASE', 'REFUND'));

-- Each status change as observed. A transaction's first status is `from_status` of its first
-- change, or its current status when it never changed.
CREATE TABLE transaction_status_changes (
  transaction_id TEXT NOT NULL,
  merchant_id    TEXT NOT NULL,
  from_status    TEXT NOT NULL,
  to_status      TEXT NOT NULL,
  observed_at    TEXT NOT NULL,
  run_id         TEXT NOT NULL
);
CREATE INDEX transaction_status_changes_by_id ON transaction_status_changes (transaction_id);

CREATE TRIGGER transaction_status_change AFTER UPDATE OF status ON transactions
WHEN old.status IS NOT new.status
BEGIN
  INSERT INTO transaction_status_changes
    (transaction_id, merchant_id, from_status, to_status, observed_at, run_id)
  VALUES (new.transaction_id, new.merchant_id, old.status, new.status, new.updated_at,
          new.updated_run_id);
END;

-- One row per read of GET /merchants/balance.
CREATE TABLE merchant_balances (
  snapshot_id   INTEGER PRIMARY KEY,
  merchant_id   TEXT NOT NULL,
  run_id        TEXT NOT NULL,
  balance       TEXT NOT NULL,
  balance_minor INTEGER,
  currency      TEXT NOT NULL,
  observed_at   TEXT NOT NULL
);
CREATE INDEX merchant_balances_by_merchant ON merchant_balances (merchant_id, observed_at);

-- Cards that a transaction names but the card list lacks, and what GET /cards/info said.
CREATE TABLE missing_cards (
  card_id     TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL,
  answer      TEXT NOT NULL,  -- 'not_found' (an orphan) or 'found' (listed late)
  checked_at  TEXT NOT NULL,
  run_id      TEXT NOT NULL
);

-- Upstream records that failed validation, with the raw JSON and why; kept until a valid
-- version of the same record arrives (`resolved_at`).
CREATE TABLE quarantine (
  quarantine_id INTEGER PRIMARY KEY,
  merchant_id   TEXT NOT NULL,
  resource      TEXT NOT NULL,  -- cards, transactions, offerings, merchant_balance
  record_id     TEXT,
  reason        TEXT NOT NULL,
  raw_json      TEXT NOT NULL,
  raw_sha256    TEXT NOT NULL,
  first_seen_at TEXT NOT NULL,
  last_seen_at  TEXT NOT NULL,
  last_run_id   TEXT NOT NULL,
  seen_count    INTEGER NOT NULL DEFAULT 1,
  resolved_at   TEXT,
  UNIQUE (merchant_id, resource, raw_sha256)
);

-- One row per run of the job.
CREATE TABLE sync_runs (
  run_id      TEXT PRIMARY KEY,
  command     TEXT NOT NULL,  -- sync, run
  started_at  TEXT NOT NULL,
  finished_at TEXT,
  outcome     TEXT NOT NULL,  -- running, done, incomplete, interrupted, failed, crashed
  exit_code   INTEGER,
  cutoff      TEXT,
  pid         INTEGER NOT NULL,
  host        TEXT NOT NULL,
  summary     TEXT,           -- JSON: counts per merchant and resource
  error       TEXT
);

-- Every unit of work of a run: a time window of transactions, or a resource read.
CREATE TABLE sync_windows (
  run_id      TEXT NOT NULL,
  merchant_id TEXT NOT NULL,
  kind        TEXT NOT NULL,  -- history, lookback, tail, unsettled, card-range, cards, ...
  start_at    TEXT,
  end_at      TEXT,
  filter      TEXT,           -- query filters beside the time range, as JSON
  expected    INTEGER,        -- the upstream's reported total
  fetched     INTEGER NOT NULL,
  upserted    INTEGER NOT NULL,
  attempts    INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  outcome     TEXT NOT NULL,  -- done, failed, skipped
  finished_at TEXT NOT NULL
);
CREATE INDEX sync_windows_by_run ON sync_windows (run_id);

-- The time ranges of transactions already mirrored, per merchant, kept merged.
CREATE TABLE sync_progress (
  merchant_id TEXT NOT NULL,
  start_at    TEXT NOT NULL,
  end_at      TEXT NOT NULL,
  PRIMARY KEY (merchant_id, start_at)
);

-- The single writer's lock (one row at most).
CREATE TABLE run_lock (
  lock_id      INTEGER PRIMARY KEY CHECK (lock_id = 1),
  run_id       TEXT NOT NULL,
  pid          INTEGER NOT NULL,
  host         TEXT NOT NULL,
  acquired_at  TEXT NOT NULL,
  heartbeat_at TEXT NOT NULL
);
