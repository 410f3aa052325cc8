import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import type { CheckCode, Severity } from './check-code.js';
import type { CheckCoverage, Undecided } from './check-coverage.js';
import type { Finding } from './finding.js';
import type { ReconSettings } from './recon-settings.js';
import type { SyncedRange } from './synced-range.js';
import type { WorkingTable } from './working-tables.js';

/** What a check reads: one merchant of the mirror, where it stands in time, and the settings. */
export interface CheckContext {
  readonly db: SqliteDatabase;
  readonly merchantId: string;
  readonly range: SyncedRange;
  readonly settings: ReconSettings;
}

/** A check's findings for one merchant, and how much it could examine. */
export interface CheckOutcome {
  readonly findings: readonly Finding[];
  readonly coverage: CheckCoverage;
  /**
   * The records it skipped, by id: an open finding about one of them is not known to be over,
   * so it stays open rather than resolved. None when absent.
   */
  readonly undecided?: Undecided;
}

/** One discrepancy check of reference-model.md section 6. */
export interface Check {
  readonly code: CheckCode;
  readonly severity: Severity;
  /** One sentence for reports and `--help`. */
  readonly description: string;
  /** The working tables it reads (working-tables.ts), built before it runs; none when absent. */
  readonly uses?: readonly WorkingTable[];
  /**
   * Run over one merchant; reads only, inside the caller's read transaction, after the working
   * tables of `uses` were built for that merchant.
   */
  run(context: CheckContext): CheckOutcome;
}
