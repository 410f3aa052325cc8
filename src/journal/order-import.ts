import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import type { ImportIssue } from './import-issue.js';
import { type JournalCsvRow, readJournalCsv } from './journal-csv.js';
import { journalDifferences } from './journal-differences.js';
import type { JournalEntry } from './journal-entry.js';
import { checkJournalRow } from './journal-row-check.js';
import { OrderImportError } from './order-import-error.js';
import { type JournaledOrder, OrderJournal } from './order-journal.js';

/** Options of {@link importOrderFile}. */
export interface ImportOptions {
  /** The journal file (RFC 4180 CSV, reference-model section 5). */
  readonly file: string;
  /** The merchant whose books it is. */
  readonly merchantId: string;
  /** The clock for `created_at` / `updated_at` (default the system clock). */
  readonly now?: () => Date;
}

/** What an import did. */
export interface ImportResult {
  /** The file as given, resolved to an absolute path. */
  readonly file: string;
  readonly merchantId: string;
  /** Data rows in the file. */
  readonly rows: number;
  /** Rows journaled by this import. */
  readonly inserted: number;
  /** Rows already journaled with the same values (a re-import), left untouched. */
  readonly unchanged: number;
  /** Lines imported but flagged: amounts too precise for their currency. */
  readonly warnings: readonly ImportIssue[];
}

/** A valid row that is not yet known to agree with the journal. */
interface Candidate {
  readonly line: number;
  readonly entry: JournalEntry;
}

/**
 * Import a merchant's order journal file into the `orders` table, all or nothing: in one
 * SQLite transaction, each new row as `IMPORTED` (source `import`). Importing the same file
 * again changes nothing (its rows count as `unchanged`). The file is refused whole, nothing
 * written, when any line is invalid or contradicts an order already journaled under its
 * merchantOrderNo; the error lists every offending line with its reason, in line order.
 *
 * An amount with more fractional digits than its currency is not a refusal: the text is kept,
 * `amount_minor` is left NULL for the reconciliation to report as PRECISION_VIOLATION, and the
 * line is returned in `warnings`.
 *
 * @example
 * const result = importOrderFile(mirror.db, { file: 'journal-mch_1.csv', merchantId: 'mch_1' });
 * // { rows: 1200, inserted: 1200, unchanged: 0, warnings: [], ... }
 * @throws OrderImportError IMPORT_UNREADABLE (the file cannot be read) or IMPORT_REFUSED
 *   (with `issues`, one per offending line).
 */
export function importOrderFile(db: SqliteDatabase, options: ImportOptions): ImportResult {
  const file = resolve(options.file);
  const now = options.now ?? (() => new Date());
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new OrderImportError('IMPORT_UNREADABLE', file, `cannot read ${file} (${code})`, [], {
      cause,
    });
  }

  const csv = readJournalCsv(bytes);
  const { candidates, issues, warnings } = screenRows(csv.rows);
  issues.unshift(...csv.issues);

  const journal = new OrderJournal(db);
  const at = now().toISOString();
  const origin = { merchantId: options.merchantId, file: basename(file) };
  let inserted = 0;
  // One IMMEDIATE transaction: the journal cannot change between the comparison and the
  // inserts, and a refusal rolls back every insert made so far.
  journal.atomically(() => {
    const currency = journal.merchantCurrency(options.merchantId) ?? firstCurrency(candidates);
    for (const { line, entry } of candidates) {
      const journaled = journal.get(entry.merchantOrderNo);
      const problem =
        currencyProblem(line, entry, currency) ??
        journalProblem(journal, journaled, line, entry, options.merchantId);
      if (problem) issues.push(problem);
      else if (!journaled && issues.length === 0) {
        journal.insertImported(entry, { ...origin, line }, at);
        inserted += 1;
      }
    }
    if (issues.length > 0) throw refusal(file, issues);
  });
  return {
    file,
    merchantId: options.merchantId,
    rows: csv.records,
    inserted,
    unchanged: candidates.length - inserted,
    warnings,
  };
}

/** Check each row alone and against the rest of the file (repeated merchantOrderNo or orderNo). */
function screenRows(rows: readonly JournalCsvRow[]): {
  candidates: Candidate[];
  issues: ImportIssue[];
  warnings: ImportIssue[];
} {
  const issues: ImportIssue[] = [];
  const warnings: ImportIssue[] = [];
  const candidates: Candidate[] = [];
  const firstLineOf = new Map<string, number>();
  const orderNoAt = new Map<string, { line: number; merchantOrderNo: string }>();
  for (const row of rows) {
    const checked = checkJournalRow(row);
    issues.push(...checked.issues);
    warnings.push(...checked.warnings);
    const merchantOrderNo = row.values.merchantOrderNo;
    const first = firstLineOf.get(merchantOrderNo);
    if (first !== undefined && merchantOrderNo !== '') {
      issues.push({
        line: row.line,
        code: 'DUPLICATE_IN_FILE',
        field: 'merchantOrderNo',
        merchantOrderNo,
        reason: `merchantOrderNo: ${merchantOrderNo} is already on line ${first} of this file`,
      });
      continue;
    }
    firstLineOf.set(merchantOrderNo, row.line);
    const { entry } = checked;
    if (!entry) continue;
    if (entry.orderNo !== null) {
      const earlier = orderNoAt.get(entry.orderNo);
      if (earlier) {
        issues.push(
          duplicateOrderNo(row.line, entry, `line ${earlier.line} (${earlier.merchantOrderNo})`),
        );
        continue;
      }
      orderNoAt.set(entry.orderNo, { line: row.line, merchantOrderNo });
    }
    candidates.push({ line: row.line, entry });
  }
  return { candidates, issues, warnings };
}

function refusal(file: string, issues: ImportIssue[]): OrderImportError {
  const sorted = [...issues].sort((a, b) => a.line - b.line);
  const lines = new Set(sorted.map((i) => i.line)).size;
  return new OrderImportError(
    'IMPORT_REFUSED',
    file,
    `refused ${basename(file)}: ${lines === 1 ? '1 offending line' : `${lines} offending lines`}; nothing was imported`,
    sorted,
  );
}

function duplicateOrderNo(line: number, entry: JournalEntry, holder: string): ImportIssue {
  return {
    line,
    code: 'DUPLICATE_ORDER_NO',
    field: 'orderNo',
    merchantOrderNo: entry.merchantOrderNo,
    reason: `orderNo: ${entry.orderNo} is already the order of ${holder}`,
  };
}

/** The currency the file's first money row names: the reference when the mirror knows none. */
function firstCurrency(candidates: readonly Candidate[]): string | undefined {
  return candidates.find((c) => c.entry.currency !== null)?.entry.currency ?? undefined;
}

function currencyProblem(
  line: number,
  entry: JournalEntry,
  currency: string | undefined,
): ImportIssue | undefined {
  if (entry.currency === null || currency === undefined || entry.currency === currency)
    return undefined;
  return {
    line,
    code: 'CURRENCY_MISMATCH',
    field: 'currency',
    merchantOrderNo: entry.merchantOrderNo,
    reason: `currency: expected the merchant's currency ${currency} (an account has one), got ${entry.currency}`,
  };
}

function journalProblem(
  journal: OrderJournal,
  journaled: JournaledOrder | undefined,
  line: number,
  entry: JournalEntry,
  merchantId: string,
): ImportIssue | undefined {
  if (journaled) {
    const differences = journalDifferences(journaled, entry, merchantId);
    if (differences.length === 0) return undefined;
    const where =
      journaled.source === 'import'
        ? `imported from ${journaled.import_file} line ${journaled.import_line}`
        : `submitted by cardsync, ${journaled.state}`;
    return {
      line,
      code: 'CONTRADICTS_JOURNAL',
      merchantOrderNo: entry.merchantOrderNo,
      reason: `contradicts the journaled ${entry.merchantOrderNo} (${where}): ${differences.join('; ')}`,
    };
  }
  if (entry.orderNo === null) return undefined;
  const holder = journal.byOrderNo(merchantId, entry.orderNo);
  if (!holder) return undefined;
  return duplicateOrderNo(line, entry, `journaled ${holder.merchant_order_no}`);
}
