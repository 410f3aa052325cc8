/**
 * The sandbox's own storage (not the job's mirror). Money is kept in integer minor units; times
 * are epoch milliseconds of the service clock. `version` bumps refuse an incompatible state dir.
 */
export const SANDBOX_SCHEMA_VERSION = 2;

export const SANDBOX_SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS merchants (
  merchant_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  currency TEXT NOT NULL,
  balance_minor INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS api_keys (
  key_hash TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(merchant_id),
  key_text TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);

CREATE TABLE IF NOT EXISTS offerings (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(merchant_id),
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  network TEXT NOT NULL,
  type TEXT NOT NULL,
  currency TEXT NOT NULL,
  min_load_minor INTEGER NOT NULL,
  max_load_minor INTEGER NOT NULL,
  issuance_fee_minor INTEGER NOT NULL,
  deposit_fee_percent TEXT NOT NULL,
  requires_holder INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS cards (
  card_id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(merchant_id),
  offering_id TEXT NOT NULL,
  holder_id TEXT,
  last_four TEXT NOT NULL,
  status TEXT NOT NULL,
  balance_minor INTEGER NOT NULL,
  currency TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  card_number TEXT NOT NULL,
  cvv TEXT NOT NULL,
  expiry_month TEXT NOT NULL,
  expiry_year TEXT NOT NULL
);

-- Rows are stored in createdAt order after generation (storeInTimeOrder), so the hundred rows of
-- a page sit together; transaction_id is unique by transactions_by_id, which a bulk load builds
-- at its end like the other indexes.
CREATE TABLE IF NOT EXISTS transactions (
  transaction_id TEXT NOT NULL,
  merchant_id TEXT NOT NULL,
  card_id TEXT NOT NULL,
  trade_no TEXT NOT NULL,
  type TEXT NOT NULL,
  status TEXT NOT NULL,
  amount_minor INTEGER NOT NULL,
  fee_minor INTEGER NOT NULL,
  currency TEXT NOT NULL,
  merchant_name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  visible_at INTEGER NOT NULL,
  posted INTEGER NOT NULL,
  applied_effect_minor INTEGER NOT NULL,
  -- Set only to plant a malformed upstream amount (PRECISION_VIOLATION); served instead of amount_minor.
  amount_text TEXT
);

CREATE TABLE IF NOT EXISTS orders (
  order_no TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL,
  merchant_order_no TEXT NOT NULL,
  kind TEXT NOT NULL,
  card_id TEXT,
  offering_id TEXT,
  amount_minor INTEGER,
  state TEXT NOT NULL,
  accepted_at INTEGER NOT NULL,
  due_at INTEGER,
  outcome_at INTEGER,
  forced_outcome TEXT
);

CREATE TABLE IF NOT EXISTS idempotency (
  merchant_id TEXT NOT NULL,
  merchant_order_no TEXT NOT NULL,
  kind TEXT NOT NULL,
  params TEXT NOT NULL,
  response_status INTEGER NOT NULL,
  response_body TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (merchant_id, merchant_order_no)
);
`;

/**
 * Secondary indexes, kept apart from the tables so a bulk load (world generation) can drop
 * them, insert, and build them once at the end: far faster than maintaining them row by row.
 */
export const SANDBOX_INDEXES: readonly string[] = [
  `CREATE INDEX IF NOT EXISTS api_keys_by_merchant ON api_keys (merchant_id, revoked_at);`,
  `CREATE INDEX IF NOT EXISTS offerings_by_merchant ON offerings (merchant_id, position);`,
  `CREATE INDEX IF NOT EXISTS cards_by_merchant ON cards (merchant_id, created_at DESC, card_id DESC);`,
  `CREATE INDEX IF NOT EXISTS cards_by_merchant_status ON cards (merchant_id, status, created_at DESC, card_id DESC);`,
  `CREATE UNIQUE INDEX IF NOT EXISTS transactions_by_id ON transactions (transaction_id);`,
  `CREATE INDEX IF NOT EXISTS transactions_by_merchant ON transactions (merchant_id, posted, created_at DESC, transaction_id DESC);`,
  `CREATE INDEX IF NOT EXISTS transactions_by_card ON transactions (card_id, posted, created_at DESC, transaction_id DESC);`,
  `CREATE INDEX IF NOT EXISTS transactions_unposted ON transactions (visible_at) WHERE posted = 0;`,
  `CREATE INDEX IF NOT EXISTS transactions_by_trade ON transactions (card_id, trade_no);`,
  `CREATE INDEX IF NOT EXISTS orders_pending ON orders (due_at, accepted_at) WHERE state = 'ACCEPTED';`,
];
