import type { Generated } from 'kysely';

/** `merchants`: each merchant the job syncs, and the configured source that reads it. */
export interface MerchantsTable {
  merchant_id: string;
  source: string;
  base_url: string;
  currency: string | null;
  first_seen_at: string;
  updated_at: string;
}

/** The terms of an offering, shared by `offerings` and `offering_versions`. */
interface OfferingTerms {
  id: string;
  merchant_id: string;
  name: string;
  network: string;
  type: string;
  currency: string;
  min_load_amount: string;
  min_load_amount_minor: number | null;
  max_load_amount: string;
  max_load_amount_minor: number | null;
  issuance_fee: string;
  issuance_fee_minor: number | null;
  deposit_fee_percent: string;
  requires_holder: number;
}

/** `offerings`: the current terms of each offering. */
export interface OfferingsTable extends OfferingTerms {
  version: number;
  first_seen_at: string;
  updated_at: string;
  last_seen_at: string;
}

/** `offering_versions`: every version of an offering's terms. */
export interface OfferingVersionsTable extends OfferingTerms {
  version: number;
  observed_at: string;
  run_id: string;
  /** When the version before this one was last seen (sql/018); null for version 1 or unknown. */
  previous_seen_at: string | null;
}

/** `cards`: the latest snapshot of each card. */
export interface CardsTable {
  card_id: string;
  merchant_id: string;
  card_offering_id: string;
  last_four: string;
  status: string;
  balance: string;
  balance_minor: number | null;
  currency: string;
  created_at: string;
  observed_at: string;
  first_seen_at: string;
  updated_at: string;
  last_seen_run_id: string;
}

/** `card_history`: status and balance when first seen and at each change. */
export interface CardHistoryTable {
  card_id: string;
  merchant_id: string;
  run_id: string;
  status: string;
  balance: string;
  balance_minor: number | null;
  observed_at: string;
}

/** `transactions`: every card transaction, at its latest observed status. */
export interface TransactionsTable {
  transaction_id: string;
  merchant_id: string;
  card_id: string;
  trade_no: string;
  type: string;
  status: string;
  amount: string;
  amount_minor: number | null;
  fee: string;
  fee_minor: number | null;
  currency: string;
  merchant_name: string;
  created_at: string;
  first_seen_at: string;
  updated_at: string;
  updated_run_id: string;
}

/** `transaction_status_changes`: each observed status change. */
export interface TransactionStatusChangesTable {
  transaction_id: string;
  merchant_id: string;
  from_status: string;
  to_status: string;
  observed_at: string;
  run_id: string;
}

/** `merchant_balances`: one row per balance read. */
export interface MerchantBalancesTable {
  snapshot_id: Generated<number>;
  merchant_id: string;
  run_id: string;
  balance: string;
  balance_minor: number | null;
  currency: string;
  observed_at: string;
}

/** `missing_cards`: cards named by transactions but absent from the card list. */
export interface MissingCardsTable {
  card_id: string;
  merchant_id: string;
  answer: 'not_found' | 'found';
  checked_at: string;
  run_id: string;
}

/** `quarantine`: upstream records that failed validation. */
export interface QuarantineTable {
  quarantine_id: Generated<number>;
  merchant_id: string;
  resource: string;
  record_id: string | null;
  reason: string;
  raw_json: string;
  raw_sha256: string;
  first_seen_at: string;
  last_seen_at: string;
  last_run_id: string;
  seen_count: Generated<number>;
  resolved_at: string | null;
}

/** `sync_runs`: one row per run of the job. */
export interface SyncRunsTable {
  run_id: string;
  command: string;
  started_at: string;
  finished_at: string | null;
  outcome: string;
  exit_code: number | null;
  cutoff: string | null;
  pid: number;
  host: string;
  summary: string | null;
  error: string | null;
}

/** `sync_windows`: each unit of work of a run. */
export interface SyncWindowsTable {
  run_id: string;
  merchant_id: string;
  kind: string;
  start_at: string | null;
  end_at: string | null;
  filter: string | null;
  expected: number | null;
  fetched: number;
  upserted: number;
  attempts: number;
  duration_ms: number;
  outcome: string;
  finished_at: string;
}

/** `sync_progress`: merged time ranges of transactions already mirrored. */
export interface SyncProgressTable {
  merchant_id: string;
  start_at: string;
  end_at: string;
}

/** `run_lock`: the single writer's lock. */
export interface RunLockTable {
  lock_id: number;
  run_id: string;
  pid: number;
  host: string;
  acquired_at: string;
  heartbeat_at: string;
}

/** `pending_reports`: a report folder announced before it is renamed into place (sql/013). */
export interface PendingReportsTable {
  run_id: string;
  dir: string;
  announced_at: string;
}

/**
 * `vanished_transactions`: mirrored transactions the upstream no longer shows, as the count
 * audit found them (sql/015). The audit leaves them out of the mirror's counts.
 */
export interface VanishedTransactionsTable {
  transaction_id: string;
  merchant_id: string;
  created_at: string;
  run_id: string;
  found_at: string;
}

/** An order's kind in the merchant's journal (reference-model.md section 5). */
export type OrderKind =
  | 'ISSUE'
  | 'DEPOSIT'
  | 'WITHDRAW'
  | 'FREEZE'
  | 'UNFREEZE'
  | 'CANCEL'
  | 'TOPUP';

/** Where a journaled order stands: submitted by this project, settled, or imported. */
export type OrderState = 'SUBMITTED' | 'ACCEPTED' | 'REJECTED' | 'IMPORTED';

/** `orders`: the merchant's order journal (sql/002_orders.sql). */
export interface OrdersTable {
  merchant_order_no: string;
  merchant_id: string;
  kind: OrderKind;
  card_id: string | null;
  offering_id: string | null;
  amount: string | null;
  amount_minor: number | null;
  currency: string | null;
  submitted_at: string;
  order_no: string | null;
  state: OrderState;
  error_code: string | null;
  request_json: string | null;
  source: 'cli' | 'import';
  import_file: string | null;
  import_line: number | null;
  created_at: string;
  updated_at: string;
}

/** `recon_runs`: one row per reconciliation (sql/003_findings.sql). */
export interface ReconRunsTable {
  run_id: string;
  reconciled_at: string;
  merchants: string;
  coverage: string;
  current_count: number;
  new_count: number;
  resolved_count: number;
  acknowledged_count: number;
}

/** Where a finding stands after the latest reconciliation. */
export type FindingState = 'new' | 'persisting' | 'resolved';

/** `findings`: every finding ever reported, keyed by fingerprint, with its lifecycle. */
export interface FindingsTable {
  fingerprint: string;
  check_code: string;
  severity: 'error' | 'warning' | 'info';
  merchant_id: string;
  card_id: string | null;
  transaction_id: string | null;
  order_no: string | null;
  merchant_order_no: string | null;
  trade_no: string | null;
  snapshot_at: string | null;
  offering_id: string | null;
  currency: string | null;
  expected: string | null;
  actual: string | null;
  delta: string | null;
  detail: string;
  state: FindingState;
  first_seen_at: string;
  first_seen_run_id: string;
  last_seen_at: string;
  last_seen_run_id: string;
  resolved_at: string | null;
  resolved_run_id: string | null;
  ack_reason: string | null;
  ack_until: string | null;
  ack_at: string | null;
  ack_expected: string | null;
  ack_actual: string | null;
  /** Minor units of `expected`, `actual`, `delta` when the check reports amounts (sql/012). */
  expected_minor: number | null;
  actual_minor: number | null;
  delta_minor: number | null;
}

/** `finding_events`: what happened to each finding, and when. */
export interface FindingEventsTable {
  fingerprint: string;
  run_id: string | null;
  at: string;
  event: 'opened' | 'reopened' | 'resolved' | 'acknowledged' | 'ack_expired' | 'ack_changed';
  detail: string | null;
}

/** `schema_migrations`: the migrations applied to this file. */
export interface SchemaMigrationsTable {
  version: number;
  name: string;
  applied_at: string;
}

/** Every table of the mirror, for kysely. */
export interface MirrorDatabase {
  merchants: MerchantsTable;
  offerings: OfferingsTable;
  offering_versions: OfferingVersionsTable;
  cards: CardsTable;
  card_history: CardHistoryTable;
  transactions: TransactionsTable;
  transaction_status_changes: TransactionStatusChangesTable;
  merchant_balances: MerchantBalancesTable;
  missing_cards: MissingCardsTable;
  quarantine: QuarantineTable;
  sync_runs: SyncRunsTable;
  sync_windows: SyncWindowsTable;
  sync_progress: SyncProgressTable;
  run_lock: RunLockTable;
  pending_reports: PendingReportsTable;
  vanished_transactions: VanishedTransactionsTable;
  orders: OrdersTable;
  recon_runs: ReconRunsTable;
  findings: FindingsTable;
  finding_events: FindingEventsTable;
  schema_migrations: SchemaMigrationsTable;
}
