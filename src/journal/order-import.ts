import { constants, createReadStream, fstatSync, open } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Socket } from 'node:net';
import { basename, resolve } from 'node:path';
import { addAbortSignal, type Readable } from 'node:stream';
import { promisify } from 'node:util';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import { inAsyncTransaction } from './async-transaction.js';
import type { ImportIssue } from './import-issue.js';
import { ImportStaging, type StagingClash } from './import-staging.js';
import { readJournalCsv } from './journal-csv.js';
import { journalDifferences } from './journal-differences.js';
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
  /** Aborted (SIGINT, SIGTERM): the import stops before it writes, and writes nothing. */
  readonly signal?: AbortSignal;
}

/** Options of {@link importOrderBytes}. */
export interface ImportBytesOptions extends ImportOptions {
  /** The journal's bytes; `file` is then only its name, for messages and `import_file`. */
  readonly bytes: AsyncIterable<Uint8Array>;
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
  /** Rows journaled by an earlier import without an orderNo, given the one the file gives. */
  readonly orderNosLearnt: number;
  /** Rows already journaled with the same values (a re-import), left untouched. */
  readonly unchanged: number;
  /** Lines imported but flagged: amounts too precise for their currency. */
  readonly warnings: readonly ImportIssue[];
}

/**
 * Import a merchant's order journal file into the `orders` table, all or nothing: each new row
 * as `IMPORTED` (source `import`), in one SQLite transaction. Importing the same file again
 * changes nothing (its rows count as `unchanged`). The file is refused whole, nothing written,
 * when any line is invalid or contradicts an order already journaled under its merchantOrderNo;
 * the error lists every offending line with its reason, in line order.
 *
 * An amount with more fractional digits than its currency is not a refusal: the text is kept,
 * `amount_minor` is left NULL for the reconciliation to report as PRECISION_VIOLATION, and the
 * line is returned in `warnings`.
 *
 * The file is streamed, never held whole: memory stays flat whatever its length. Nothing else
 * may use `db` until the promise settles (see {@link importOrderBytes}).
 * @example
 * const result = await importOrderFile(mirror.db, { file: 'journal-mch_1.csv', merchantId: 'mch_1' });
 * // { rows: 1200, inserted: 1200, unchanged: 0, warnings: [], ... }
 * @throws OrderImportError IMPORT_UNREADABLE (the file cannot be read), IMPORT_REFUSED
 *   (with `issues`, one per offending line) or IMPORT_INTERRUPTED (`signal` aborted).
 */
export async function importOrderFile(
  db: SqliteDatabase,
  options: ImportOptions,
): Promise<ImportResult> {
  const file = resolve(options.file);
  let fd: number;
  try {
    const stats = await stat(file);
    // A socket (the stdin a Node.js or libuv parent pipes to its child) cannot be opened by its
    // path (ENXIO): `/dev/stdin` or `/dev/fd/N` is read through the descriptor it names. A FIFO
    // is opened without waiting for its writer, which a stop could not interrupt (the open blocks
    // a thread of the pool); its reads then wait for the writer instead.
    const own = stats.isSocket() ? ownDescriptor(file) : undefined;
    const flags = stats.isFIFO() ? constants.O_RDONLY | constants.O_NONBLOCK : 'r';
    fd = own ?? (await promisify(open)(file, flags));
  } catch (cause) {
    throw unreadable(file, cause);
  }
  const stream = readerOf(fd, file);
  // The stop ends the read itself: a pipe whose writer stalls gives the loop no next row to
  // notice it by.
  if (options.signal) addAbortSignal(options.signal, stream);
  try {
    return await importOrderBytes(db, {
      ...options,
      file,
      bytes: chunksOf(stream, file, options.signal),
    });
  } finally {
    stream.destroy();
  }
}

/** The descriptor of this process that `file` names (`/dev/stdin`, `/dev/fd/N`), if any. */
function ownDescriptor(file: string): number | undefined {
  if (file === '/dev/stdin') return 0;
  const named = /^\/(?:dev|proc\/self)\/fd\/(\d+)$/.exec(file);
  return named ? Number(named[1]) : undefined;
}

/**
 * The bytes at `fd`, which the stream closes. A pipe (`/dev/stdin`, a FIFO) is read through
 * libuv's non-blocking pipe handle, as `process.stdin` is: read through the thread pool, a read
 * of it blocks a thread until the writer sends more, and no stop can end it; an import stopped
 * while a stalled producer held the pipe open waited on that read, deaf to SIGTERM.
 */
function readerOf(fd: number, file: string): Readable {
  const stats = fstatSync(fd);
  return stats.isFIFO() || stats.isSocket()
    ? new Socket({ fd, readable: true, writable: false })
    : createReadStream(file, { fd });
}

/**
 * {@link importOrderFile} for a journal's bytes as they stream in. Two steps:
 *
 * 1. Each row is checked as it comes and staged in a TEMP table (import-staging.ts), which
 *    also finds the merchantOrderNo and orderNo repeated within the file. This takes no lock
 *    on the mirror: a sync may write meanwhile.
 * 2. One IMMEDIATE transaction then holds the staged rows against the journal as it stands
 *    (currency, contradictions, orderNo already carried), set-wise in SQL, and either refuses
 *    the file or inserts the new rows, so the journal cannot change between the comparison and
 *    the inserts.
 *
 * Step 1 is a transaction on the TEMP table that spans awaits: nothing else may use `db` until
 * the promise settles, or it would run inside it.
 * @throws OrderImportError IMPORT_REFUSED or IMPORT_INTERRUPTED; and whatever `bytes` throws.
 */
export async function importOrderBytes(
  db: SqliteDatabase,
  options: ImportBytesOptions,
): Promise<ImportResult> {
  const { file, merchantId, signal } = options;
  const now = options.now ?? (() => new Date());
  const issues: ImportIssue[] = [];
  const warnings: ImportIssue[] = [];
  let rows = 0;
  let candidates = 0;
  const staging = ImportStaging.open(db);
  try {
    await inAsyncTransaction(db, 'DEFERRED', async () => {
      for await (const item of readJournalCsv(options.bytes)) {
        if (signal?.aborted) throw interrupted(file);
        if (item.kind === 'issue') {
          // Not text: whatever else was found in it means nothing.
          if (item.issue.code === 'NOT_UTF8') throw refusal(file, [item.issue]);
          issues.push(item.issue);
          continue;
        }
        const { line, values } = item.row;
        rows += 1;
        const checked = checkJournalRow(item.row);
        issues.push(...checked.issues);
        warnings.push(...checked.warnings);
        const clash = staging.stage(line, values.merchantOrderNo, checked.entry);
        if (clash) issues.push(repeated(line, values.merchantOrderNo, clash));
        else if (checked.entry) candidates += 1;
      }
    });

    if (signal?.aborted) throw interrupted(file);
    const journal = new OrderJournal(db);
    const { inserted, orderNosLearnt } = journal.atomically(() => {
      const currency = journal.merchantCurrency(merchantId) ?? staging.commonestCurrency();
      for (const issue of journalIssues(staging, merchantId, currency)) issues.push(issue);
      if (issues.length > 0) throw refusal(file, issues);
      const at = now().toISOString();
      return {
        orderNosLearnt: staging.fillOrderNos(merchantId, at),
        inserted: staging.insertNew({ merchantId, file: basename(file) }, at),
      };
    });
    const unchanged = candidates - inserted - orderNosLearnt;
    return { file, merchantId, rows, inserted, orderNosLearnt, unchanged, warnings };
  } finally {
    staging.close();
  }
}

async function* chunksOf(
  stream: Readable,
  file: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } catch (cause) {
    throw signal?.aborted ? interrupted(file) : unreadable(file, cause);
  }
}

function unreadable(file: string, cause: unknown): OrderImportError {
  const code = (cause as NodeJS.ErrnoException).code ?? 'unknown error';
  return new OrderImportError('IMPORT_UNREADABLE', file, `cannot read ${file} (${code})`, [], {
    cause,
  });
}

function interrupted(file: string): OrderImportError {
  return new OrderImportError(
    'IMPORT_INTERRUPTED',
    file,
    `${basename(file)}: interrupted; nothing was imported`,
  );
}

/** A row repeating an earlier line of the file. */
function repeated(line: number, merchantOrderNo: string, clash: StagingClash): ImportIssue {
  if (clash.field === 'orderNo')
    return duplicateOrderNo(
      line,
      merchantOrderNo,
      clash.orderNo,
      `line ${clash.line} (${clash.merchantOrderNo})`,
    );
  return {
    line,
    code: 'DUPLICATE_IN_FILE',
    field: 'merchantOrderNo',
    merchantOrderNo,
    reason: `merchantOrderNo: ${merchantOrderNo} is already on line ${clash.line} of this file`,
  };
}

/**
 * What the staged rows break against the journal: a currency other than the merchant's (the
 * mirror's, else the file's commonest), else a contradiction of the row journaled under the same
 * merchantOrderNo, else, for a new row, an orderNo that a journaled order carries.
 */
function* journalIssues(
  staging: ImportStaging,
  merchantId: string,
  currency: string | undefined,
): Generator<ImportIssue> {
  if (currency !== undefined)
    for (const outlier of staging.currencyOutliers(currency))
      yield {
        line: outlier.line,
        code: 'CURRENCY_MISMATCH',
        field: 'currency',
        merchantOrderNo: outlier.merchantOrderNo,
        reason: `currency: expected the merchant's currency ${currency} (an account has one), got ${outlier.currency}`,
      };
  for (const { line, entry, journaled } of staging.journaled(merchantId, currency)) {
    const differences = journalDifferences(journaled, entry, merchantId);
    if (differences.length > 0)
      yield {
        line,
        code: 'CONTRADICTS_JOURNAL',
        merchantOrderNo: entry.merchantOrderNo,
        reason: `contradicts the journaled ${entry.merchantOrderNo} (${origin(journaled)}): ${differences.join('; ')}`,
      };
  }
  for (const held of staging.heldOrderNos(merchantId, currency))
    yield duplicateOrderNo(
      held.line,
      held.merchantOrderNo,
      held.orderNo,
      `journaled ${held.holder}`,
    );
}

function origin(journaled: JournaledOrder): string {
  return journaled.source === 'import'
    ? `imported from ${journaled.import_file} line ${journaled.import_line}`
    : `submitted by cardsync, ${journaled.state}`;
}

function duplicateOrderNo(
  line: number,
  merchantOrderNo: string,
  orderNo: string,
  holder: string,
): ImportIssue {
  return {
    line,
    code: 'DUPLICATE_ORDER_NO',
    field: 'orderNo',
    merchantOrderNo,
    reason: `orderNo: ${orderNo} is already the order of ${holder}`,
  };
}

function refusal(file: string, issues: readonly ImportIssue[]): OrderImportError {
  const sorted = [...issues].sort((a, b) => a.line - b.line);
  const lines = new Set(sorted.map((i) => i.line)).size;
  return new OrderImportError(
    'IMPORT_REFUSED',
    file,
    `refused ${basename(file)}: ${lines === 1 ? '1 offending line' : `${lines} offending lines`}; nothing was imported`,
    sorted,
  );
}
