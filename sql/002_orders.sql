-- 002: the merchant's order journal (reference-model.md section 5).
--
-- One row per order the merchant placed, keyed by its own `merchant_order_no`. Orders this
-- project submits (`cardsync cards issue|deposit|...`) are written `SUBMITTED` before the request
-- leaves, then settled `ACCEPTED` with the upstream's `order_no`, or `REJECTED` with the error
-- code. Orders placed elsewhere arrive by `cardsync orders import` as `IMPORTED` rows.
-- A TOPUP is not an API order: it is only imported, never submitted, and has no `order_no`.

CREATE TABLE orders (
  merchant_order_no TEXT PRIMARY KEY,
  merchant_id       TEXT NOT NULL,
  kind              TEXT NOT NULL
    CHECK (kind IN ('ISSUE', 'DEPOSIT', 'WITHDRAW', 'FREEZE', 'UNFREEZE', 'CANCEL', 'TOPUP')),
  card_id           TEXT,                  -- NULL for ISSUE (until linked) and TOPUP
  offering_id       TEXT,                  -- ISSUE only
  amount            TEXT,                  -- exact decimal text; NULL for FREEZE, UNFREEZE, CANCEL
  amount_minor      INTEGER,               -- NULL when amount is NULL or too precise
  currency          TEXT,
  submitted_at      TEXT NOT NULL,         -- ISO 8601 UTC
  order_no          TEXT,                  -- the upstream's order number; NULL where unknown
  state             TEXT NOT NULL
    CHECK (state IN ('SUBMITTED', 'ACCEPTED', 'REJECTED', 'IMPORTED')),
  error_code        TEXT,                  -- REJECTED: the upstream's error code
  request_json      TEXT,                  -- the body sent, so a retry replays it unchanged
  source            TEXT NOT NULL CHECK (source IN ('cli', 'import')),
  import_file       TEXT,                  -- the file an imported row came from (its base name)
  import_line       INTEGER,
  created_at        TEXT NOT NULL,
  updated_at        TEXT NOT NULL
);
CREATE INDEX orders_by_merchant ON orders (merchant_id, submitted_at);
CREATE UNIQUE INDEX orders_by_order_no ON orders (merchant_id, order_no) WHERE order_no IS NOT NULL;
CREATE INDEX orders_by_card ON orders (card_id, submitted_at) WHERE card_id IS NOT NULL;
