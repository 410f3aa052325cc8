-- 003: reconciliation findings, kept across runs (docs/reconciliation.md).
--
-- A finding is keyed by its fingerprint: a hash of its check code, merchant and identifying ids
-- (docs/findings.md, "identified by"); the ids are kept in their own columns too. Each
-- reconciliation updates the table as one transaction: a finding seen for the first time is
-- `new`, seen again `persisting`, and one that stopped holding `resolved` (with when and by
-- which run). One that holds again after being resolved starts over as `new`.
-- An acknowledgement (`ack_*`) keeps a finding out of the main report until `ack_until`, as
-- long as its expected and actual values stay those acknowledged.

-- One row per reconciliation.
CREATE TABLE recon_runs (
  run_id             TEXT PRIMARY KEY,
  reconciled_at      TEXT NOT NULL,
  merchants          TEXT NOT NULL,  -- JSON: each merchant's cutoff and synced range
  coverage           TEXT NOT NULL,  -- JSON: per check and merchant, examined and skipped
  current_count      INTEGER NOT NULL,  -- findings in the main report (new + persisting)
  new_count          INTEGER NOT NULL,
  resolved_count     INTEGER NOT NULL,
  acknowledged_count INTEGER NOT NULL
);

CREATE TABLE findings (
  fingerprint       TEXT PRIMARY KEY,
  check_code        TEXT NOT NULL,
  severity          TEXT NOT NULL CHECK (severity IN ('error', 'warning', 'info')),
  merchant_id       TEXT NOT NULL,
  card_id           TEXT,
  transaction_id    TEXT,
  order_no          TEXT,
  merchant_order_no TEXT,
  trade_no          TEXT,
  snapshot_at       TEXT,           -- MERCHANT_BALANCE_MISMATCH: the later snapshot's time
  currency          TEXT,
  expected          TEXT,           -- decimal text in the currency's exponent (or a status)
  actual            TEXT,
  delta             TEXT,           -- actual - expected
  detail            TEXT NOT NULL,
  state             TEXT NOT NULL CHECK (state IN ('new', 'persisting', 'resolved')),
  first_seen_at     TEXT NOT NULL,
  first_seen_run_id TEXT NOT NULL,
  last_seen_at      TEXT NOT NULL,
  last_seen_run_id  TEXT NOT NULL,
  resolved_at       TEXT,
  resolved_run_id   TEXT,
  ack_reason        TEXT,           -- set while acknowledged
  ack_until         TEXT,
  ack_at            TEXT,
  ack_expected      TEXT,           -- the values acknowledged: a change brings the finding back
  ack_actual        TEXT
);
CREATE INDEX findings_open ON findings (merchant_id, check_code) WHERE state <> 'resolved';

-- What happened to each finding, for the audit trail: opened, reopened, resolved,
-- acknowledged, and an acknowledgement that lapsed (expired, or the amounts changed).
CREATE TABLE finding_events (
  fingerprint TEXT NOT NULL,
  run_id      TEXT,
  at          TEXT NOT NULL,
  event       TEXT NOT NULL
    CHECK (event IN ('opened', 'reopened', 'resolved', 'acknowledged', 'ack_expired', 'ack_changed')),
  detail      TEXT
);
CREATE INDEX finding_events_by_fingerprint ON finding_events (fingerprint, at);
