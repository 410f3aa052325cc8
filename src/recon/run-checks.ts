import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import { ALL_CHECKS } from './all-checks.js';
import type { Check } from './check.js';
import { CHECK_CODES, type CheckCode } from './check-code.js';
import type { CheckCoverage, Undecided } from './check-coverage.js';
import type { Finding } from './finding.js';
import { DEFAULT_RECON_SETTINGS, type ReconSettings } from './recon-settings.js';
import { readSyncedRange, type SyncedRange } from './synced-range.js';
import { buildWorkingTables } from './working-tables.js';

/** What {@link runChecks} reads and how. */
export interface RunChecksOptions {
  /** The merchants to check; every merchant of the mirror (synced or journaled) by default. */
  readonly merchantIds?: readonly string[];
  /** Validated settings (`reconSettings(...)`); the defaults of section 6 when absent. */
  readonly settings?: ReconSettings;
  /** A cutoff per merchant (ISO 8601) instead of the end of its synced range. */
  readonly cutoffByMerchant?: Readonly<Record<string, string>>;
  /** The checks to run (all by default); `settings.enabled` still turns each off. */
  readonly checks?: readonly Check[];
}

/** Everything one reconciliation found, what it could examine, and where each merchant stood. */
export interface CheckResults {
  /** Every finding, by check (in `CHECK_CODES` order), merchant and fingerprint. */
  readonly findings: readonly Finding[];
  /** One entry per check and merchant that ran: the scope in which findings can resolve. */
  readonly coverage: readonly CheckCoverage[];
  /** The synced range (cutoff) each merchant was checked against. */
  readonly merchants: readonly SyncedRange[];
  /** Per check and merchant that ran, the records it skipped: their open findings stay open. */
  readonly undecided: readonly UndecidedOf[];
}

/** What one check left undecided for one merchant. */
export interface UndecidedOf {
  readonly check: CheckCode;
  readonly merchantId: string;
  readonly undecided: Undecided;
}

/**
 * Run the enabled checks over every merchant of the mirror, in one read transaction so they all
 * see the same state. Pure reading: nothing of the mirror is written (the findings store records
 * results); the working tables the checks share are built per merchant in the connection's temp
 * schema and dropped after its checks.
 * @example
 * const { findings, coverage } = runChecks(mirror.db, { settings: reconSettings({ graceMs: 7_200_000 }) });
 */
export function runChecks(db: SqliteDatabase, options: RunChecksOptions = {}): CheckResults {
  const settings = options.settings ?? DEFAULT_RECON_SETTINGS;
  const checks = (options.checks ?? ALL_CHECKS).filter((check) => settings.enabled[check.code]);
  const tables = new Set(checks.flatMap((check) => check.uses ?? []));
  const read = db.transaction(() => {
    const merchantIds = options.merchantIds ?? knownMerchants(db);
    const findings: Finding[] = [];
    const coverage: CheckCoverage[] = [];
    const merchants: SyncedRange[] = [];
    const undecided: UndecidedOf[] = [];
    for (const merchantId of merchantIds) {
      const range = readSyncedRange(db, merchantId, options.cutoffByMerchant?.[merchantId]);
      merchants.push(range);
      const dropTables = buildWorkingTables(db, merchantId, tables);
      try {
        for (const check of checks) {
          const outcome = check.run({ db, merchantId, range, settings });
          // Not push(...): spread as arguments, 150,000 findings overflow the stack.
          for (const finding of outcome.findings) findings.push(finding);
          coverage.push(outcome.coverage);
          if (outcome.undecided)
            undecided.push({ check: check.code, merchantId, undecided: outcome.undecided });
        }
      } finally {
        dropTables();
      }
    }
    return { findings: findings.sort(byReportOrder), coverage, merchants, undecided };
  });
  return read.deferred();
}

/** The merchants the mirror knows: synced ones and those with a journal. */
function knownMerchants(db: SqliteDatabase): string[] {
  return db
    .prepare(
      `SELECT merchant_id FROM merchants UNION SELECT DISTINCT merchant_id FROM orders
       ORDER BY merchant_id`,
    )
    .pluck()
    .all() as string[];
}

const RANK = new Map<CheckCode, number>(CHECK_CODES.map((code, index) => [code, index]));

function byReportOrder(a: Finding, b: Finding): number {
  return (
    (RANK.get(a.check) ?? 0) - (RANK.get(b.check) ?? 0) ||
    compare(a.merchantId, b.merchantId) ||
    compare(sortKey(a), sortKey(b))
  );
}

function sortKey(f: Finding): string {
  return [
    f.cardId,
    f.orderNo,
    f.transactionId,
    f.tradeNo,
    f.snapshotAt,
    f.offeringId,
    f.fingerprint,
  ]
    .map((id) => id ?? '')
    .join('\u0000');
}

/** Code-point order: the same in every locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
