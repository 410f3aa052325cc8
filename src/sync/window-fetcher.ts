import { MalformedRecordError, type PageResult } from '../api/index.js';
import type { ListTransactionsQuery, Transaction } from '../contract/index.js';
import { effectivePageSize } from './effective-page-size.js';
import { coarseFirst, SplitDensity } from './split-density.js';
import { canSplit, isoTime, splitRange, startTimeFilter, type TimeRange } from './time-range.js';

/** The part of the API client a window needs. */
export interface TransactionLister {
  listTransactions(
    query: ListTransactionsQuery,
    options?: { signal?: AbortSignal },
  ): Promise<PageResult<Transaction>>;
}

/** Filters besides the time range: a window can be narrowed to a card, a type or a status. */
export type WindowFilter = Pick<ListTransactionsQuery, 'cardId' | 'type' | 'status'>;

/** A window to read: a time range and optional filters. */
export interface WindowQuery {
  readonly range: TimeRange;
  readonly filter?: WindowFilter;
  /** What the other parts of the split this window came from have shown of the density. */
  readonly density?: SplitDensity;
}

/** Options of {@link fetchWindow}. */
export interface WindowFetchOptions {
  /** A window whose first page reports more pages than this is split before paging. */
  readonly maxPages: number;
  readonly signal?: AbortSignal;
  /**
   * Requests per page (the upstream may answer with fewer: `pagination.limit` is believed, or
   * the first page's length when shorter, see {@link effectivePageSize}).
   */
  readonly pageSize?: number;
  /**
   * Land rows of a window that cannot be cut (one millisecond) while its other pages are read.
   * Such a window may hold any number of pages: with this, it is read `maxPages` pages at a
   * time, each group handed over while the next is read, so it is never held whole. Without
   * it, every page is held until the window is read.
   */
  readonly landAhead?: (rows: Transaction[]) => Promise<void>;
  /** Told of every page's valid rows as it arrives, in the order the pages were read. */
  readonly arrived?: (rows: readonly Transaction[]) => void;
}

/** A window read whole: every record the upstream counted, each once. */
export interface FetchedWindow {
  readonly kind: 'fetched';
  /** The valid rows read, on any attempt, that were not handed to `landAhead`. */
  readonly rows: ReadonlyMap<string, Transaction>;
  /** The ids of the valid rows handed to `landAhead` (none of them among `rows`). */
  readonly landedAhead: ReadonlySet<string>;
  readonly rejected: readonly MalformedRecordError[];
  /** The upstream's total for the window on the last attempt. */
  readonly expected: number;
  readonly attempts: number;
  /** False when drift never settled and the window could not be cut any finer. */
  readonly verified: boolean;
}

/** A window too large (or too unstable) to page: read these parts instead. */
export interface SplitWindow {
  readonly kind: 'split';
  /** In the order to read them: spread out first, so the later ones can be estimated. */
  readonly parts: readonly TimeRange[];
  /** Shared by the parts: pass it along with each (see {@link WindowQuery.density}). */
  readonly density: SplitDensity;
  /** The upstream's total, or the estimate when the window was cut without a request. */
  readonly expected: number;
  readonly attempts: number;
}

const MAX_PARTS = 64;
const ATTEMPTS_BEFORE_SPLIT = 2;
const ATTEMPTS_UNSPLITTABLE = 4;

/** A window of `pages` pages cut in proportion, its parts sharing what they learn. */
function cut(
  range: TimeRange,
  pages: number,
  maxPages: number,
  limit: number,
  expected: number,
  attempts: number,
): SplitWindow {
  const parts = Math.min(MAX_PARTS, Math.ceil(pages / maxPages));
  return {
    kind: 'split',
    parts: coarseFirst(splitRange(range, parts)),
    density: new SplitDensity(limit),
    expected,
    attempts,
  };
}

/**
 * Read one window of transactions. The first page gives the upstream's count and its real
 * page size; a window of more than `maxPages` pages is split in proportion before paging, so
 * no deep offsets are ever read. A part of a split whose neighbours, read already, say it is
 * too big is split before any request: its first page would only be thrown away. Otherwise the
 * remaining pages are fetched concurrently (the client bounds how many are in flight; a window
 * that cannot be cut, `maxPages` at a time, see {@link WindowFetchOptions.landAhead}) and the
 * distinct ids must equal the reported total: records that moved between pages while we read
 * (drift) show up as a shortfall or a changed total, and the window is read again, then split.
 *
 * The query widens the range by 1 ms on both sides, so the result does not depend on whether
 * the upstream's time filters are inclusive (reference-model section 7).
 */
export async function fetchWindow(
  lister: TransactionLister,
  window: WindowQuery,
  options: WindowFetchOptions,
): Promise<FetchedWindow | SplitWindow> {
  const rows = new Map<string, Transaction>();
  const rejected = new Map<string, MalformedRecordError>();
  const pageSize = options.pageSize ?? 100;
  const base: ListTransactionsQuery = {
    ...window.filter,
    ...startTimeFilter(window.range.start),
    endTime: isoTime(window.range.end + 1),
  };
  const call = { signal: options.signal };
  // This read's first version of each id, and the rows listed under an id it listed already
  // with other content: two records sharing an id, which no re-read or split can tell apart.
  // Told apart as pages arrive, so that `arrived` never hears of a twin as the row's last read.
  // The first version is the row itself where the window is held whole anyway (a window that can
  // be cut), else a hash of it, as rows landed ahead are let go. Hashing every row of a first
  // sync cost about 2 s of the main thread's CPU at 1M rows; comparing on a repeat costs nothing.
  const whole = canSplit(window.range);
  let versions = new Map<string, Transaction | number>();
  let twins = new Set<Transaction>();
  const list = async (query: ListTransactionsQuery) => {
    const page = await lister.listTransactions(query, call);
    const read = versions;
    const found = twins;
    for (const row of page.records) {
      const first = read.get(row.transactionId);
      if (first === undefined) read.set(row.transactionId, whole ? row : contentHash(row));
      else if (typeof first === 'number' ? first !== contentHash(row) : !sameContent(first, row))
        found.add(row);
    }
    options.arrived?.(found.size === 0 ? page.records : page.records.filter((r) => !found.has(r)));
    return page;
  };
  const density = window.density;
  const guess = density?.estimate(window.range) ?? null;
  if (density && guess !== null && canSplit(window.range)) {
    // Its neighbours say it is too big: its first page would only be thrown away.
    const guessPages = Math.ceil(guess / density.limit);
    if (guessPages > options.maxPages)
      return cut(window.range, guessPages, options.maxPages, density.limit, Math.round(guess), 0);
  }
  const landedAhead = new Set<string>();
  let expected = 0;
  // The ids the last read listed twice with other content (see below).
  let twinsBefore = new Set<string>();
  for (let attempt = 1; ; attempt++) {
    versions = new Map();
    twins = new Set();
    const first = await list({ ...base, page: 1, limit: pageSize });
    expected = first.pagination.total;
    // What the upstream made of the limit asked for, or fewer: the rows its first page holds
    // when it holds fewer than both (an upstream paging by its own size, echoing ours).
    const limit = effectivePageSize(first);
    if (attempt === 1) density?.observe(window.range, expected);
    const pageCount = Math.ceil(expected / limit);
    if (pageCount > options.maxPages && canSplit(window.range))
      return cut(window.range, pageCount, options.maxPages, limit, expected, attempt);
    const seen = new Set<string>();
    // Later versions listed under an id, kept apart until the read is judged.
    const later: Transaction[] = [];
    let stable = true;
    const take = (page: PageResult<Transaction>) => {
      // The pages after the first are asked for with `limit` and must keep it.
      if (page.pagination.total !== expected || (page !== first && page.pagination.limit !== limit))
        stable = false;
      for (const row of page.records) {
        if (twins.has(row)) {
          later.push(row);
          continue;
        }
        seen.add(row.transactionId);
        rows.set(row.transactionId, row);
        if (landedAhead.size > 0) landedAhead.delete(row.transactionId);
      }
      page.rejected.forEach((error, index) => {
        // Its own transactionId, not the first id the record carries: that may be its card's,
        // shared by other malformed records of the card, which would then count as one.
        const own = ownTransactionId(error);
        const id =
          own !== undefined && own.length > 0 ? own : `page${page.pagination.page}#${index}`;
        seen.add(id);
        rejected.set(id, error);
      });
    };
    take(first);
    await readRemainingPages((page) => list({ ...base, page, limit }), pageCount, take, {
      groupPages: options.landAhead ? options.maxPages : pageCount,
      ...(options.landAhead ? { landAhead: options.landAhead } : {}),
      rows,
      landedAhead,
    });
    // A record fixed upstream between attempts is no longer malformed.
    for (const id of rows.keys()) rejected.delete(id);
    for (const id of landedAhead) rejected.delete(id);
    // Two records under one id are counted twice by the upstream: the later one quarantined,
    // once two reads in a row list the same ids twice. One read alone may be drift: on an
    // upstream ordered by change, a row changed while we read is listed again further on, and a
    // row moved past the pages read is missed, which would count level with the twin. A read
    // that does not count level is drift too: the version listed last wins, as ever.
    const twinIds = new Set([...twins].map((row) => row.transactionId));
    const sameTwins =
      twinIds.size === 0 ||
      (twinIds.size === twinsBefore.size && [...twinIds].every((id) => twinsBefore.has(id)));
    twinsBefore = twinIds;
    if (stable && seen.size + twins.size === expected && sameTwins)
      return {
        kind: 'fetched',
        rows,
        landedAhead,
        rejected: [...rejected.values(), ...[...twins].map((row) => sharedId(row, attempt))],
        expected,
        attempts: attempt,
        verified: true,
      };
    for (const row of later) {
      rows.set(row.transactionId, row);
      if (landedAhead.size > 0) landedAhead.delete(row.transactionId);
    }
    if (attempt >= ATTEMPTS_BEFORE_SPLIT && canSplit(window.range))
      return {
        kind: 'split',
        parts: splitRange(window.range, 2),
        density: new SplitDensity(limit),
        expected,
        attempts: attempt,
      };
    if (attempt >= ATTEMPTS_UNSPLITTABLE)
      return {
        kind: 'fetched',
        rows,
        landedAhead,
        rejected: [...rejected.values()],
        expected,
        attempts: attempt,
        verified: false,
      };
  }
}

/**
 * Read pages 2 to `pageCount` of a window, `groupPages` at a time (the client bounds how many
 * are in flight), each page passed to `take`. With `landAhead`, the rows `take` gathered are
 * handed over after each group but the last, landing while the next group is read; every
 * landing is over when this returns, or throws.
 */
async function readRemainingPages(
  read: (page: number) => Promise<PageResult<Transaction>>,
  pageCount: number,
  take: (page: PageResult<Transaction>) => void,
  group: {
    readonly groupPages: number;
    readonly landAhead?: (rows: Transaction[]) => Promise<void>;
    readonly rows: Map<string, Transaction>;
    readonly landedAhead: Set<string>;
  },
): Promise<void> {
  const step = Math.max(1, group.groupPages);
  let landing: Promise<void> = Promise.resolve();
  try {
    for (let from = 2; from <= pageCount; from += step) {
      const to = Math.min(pageCount, from + step - 1);
      const pages = await Promise.all(
        Array.from({ length: to - from + 1 }, (_, i) => read(from + i)),
      );
      for (const page of pages) take(page);
      if (group.landAhead && to < pageCount) {
        await landing;
        const ahead = [...group.rows.values()];
        for (const id of group.rows.keys()) group.landedAhead.add(id);
        group.rows.clear();
        landing = group.landAhead(ahead);
        // Awaited before the next hand-over or at the end; until then a failure waits there.
        landing.catch(() => {});
      }
    }
  } catch (error) {
    // A landing under way finishes before the failure goes up: nothing is left writing.
    await landing.catch(() => {});
    throw error;
  }
  await landing;
}

/** A row's fields besides its id: two rows under one id that differ in one are two records. */
const CONTENT = [
  'cardId',
  'tradeNo',
  'type',
  'status',
  'amount',
  'fee',
  'currency',
  'merchantName',
  'createdAt',
] as const satisfies readonly (keyof Transaction)[];

/** Whether two rows listed under one id carry the same fields. */
function sameContent(a: Transaction, b: Transaction): boolean {
  return CONTENT.every((field) => a[field] === b[field]);
}

/**
 * A 32-bit FNV-1a hash of a row's fields besides its id: two rows listed under one id whose
 * hashes differ are two records. (Two that collide are taken for one, as before: their window
 * then never counts level, and is cut down and read as drift.)
 */
function contentHash(row: Transaction): number {
  const text = CONTENT.map((field) => row[field]).join('\0');
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A row listed under an id that the same read listed with other content, to quarantine. */
function sharedId(row: Transaction, attempts: number): MalformedRecordError {
  return new MalformedRecordError(
    row,
    `/transactionId ${row.transactionId} is listed twice in one read of its window, with other content: two records share the id`,
    { operation: 'listTransactions', attempts },
  );
}

/** The `transactionId` a malformed record carries as its own, if it is text. */
export function ownTransactionId(error: MalformedRecordError): string | undefined {
  const own = (error.raw as { transactionId?: unknown } | null)?.transactionId;
  return typeof own === 'string' ? own : undefined;
}
