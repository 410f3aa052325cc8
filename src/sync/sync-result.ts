/** How a step ended (style.md: steps report results). */
export type StepOutcome = 'done' | 'failed' | 'skipped';

/** How one merchant's sync, or the whole run, ended. */
export type SyncOutcome = 'done' | 'incomplete' | 'interrupted' | 'unauthorized';

/**
 * The exit code a run records for each sync outcome, and for `busy`: another writer held the
 * mirror longer than its busy timeout (the CLI owns the numbers).
 */
export type SyncExitCodes = Readonly<Record<SyncOutcome | 'busy', number>>;

/** Rows of one resource. */
export interface ResourceCounts {
  outcome: StepOutcome;
  fetched: number;
  inserted: number;
  updated: number;
  unchanged: number;
  quarantined: number;
}

/** The transaction windows of one merchant. */
export interface TransactionCounts extends ResourceCounts {
  windows: number;
  windowsFailed: number;
  splits: number;
  /** Windows whose count never matched (persistent drift on a 1 ms range). */
  unverified: number;
}

/** The re-check of rows whose status may still move. */
export interface UnsettledCounts {
  outcome: StepOutcome;
  watched: number;
  changed: number;
  /** Watched rows the upstream no longer shows at all. */
  vanished: number;
}

/** The closing count check of the synced range. */
export interface AuditResult {
  outcome: StepOutcome;
  queries: number;
  reread: number;
  surplus: number;
}

/** Cards that transactions name but the card list lacks. */
export interface MissingCardCounts {
  outcome: StepOutcome;
  checked: number;
  orphans: number;
}

/** What one merchant's sync did. */
export interface MerchantSyncResult {
  source: string;
  merchantId: string | null;
  outcome: SyncOutcome;
  offerings: ResourceCounts;
  /** `quarantined`: the balance read was malformed, so no snapshot was taken. */
  balance: {
    outcome: StepOutcome | 'quarantined';
    balance: string | null;
    currency: string | null;
  };
  cards: ResourceCounts;
  transactions: TransactionCounts;
  unsettled: UnsettledCounts;
  audit: AuditResult;
  missingCards: MissingCardCounts;
  error: { code: string; message: string } | null;
}

/** What a whole sync run did. */
export interface SyncResult {
  runId: string;
  startedAt: string;
  finishedAt: string;
  cutoff: string | null;
  outcome: SyncOutcome;
  durationMs: number;
  merchants: MerchantSyncResult[];
}

/** Empty counts for a resource not yet read. */
export function emptyCounts(): ResourceCounts {
  return { outcome: 'skipped', fetched: 0, inserted: 0, updated: 0, unchanged: 0, quarantined: 0 };
}

/** Empty results for a merchant about to be synced. */
export function emptyMerchantResult(source: string): MerchantSyncResult {
  return {
    source,
    merchantId: null,
    outcome: 'done',
    offerings: emptyCounts(),
    balance: { outcome: 'skipped', balance: null, currency: null },
    cards: emptyCounts(),
    transactions: { ...emptyCounts(), windows: 0, windowsFailed: 0, splits: 0, unverified: 0 },
    unsettled: { outcome: 'skipped', watched: 0, changed: 0, vanished: 0 },
    audit: { outcome: 'skipped', queries: 0, reread: 0, surplus: 0 },
    missingCards: { outcome: 'skipped', checked: 0, orphans: 0 },
    error: null,
  };
}
