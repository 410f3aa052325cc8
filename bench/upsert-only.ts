import type { Card, Transaction } from '../src/contract/index.js';
import type { Mirror } from '../src/mirror/open-mirror.js';
import type { WriteContext } from '../src/mirror/transaction-writer.js';
import { currencyExponent } from '../src/money/currency.js';
import { formatMinor } from '../src/money/decimal.js';
import { Database } from '../src/sqlite-driver.js';
import { emptyMerchantResult } from '../src/sync/sync-result.js';
import { windowBatcher } from '../src/sync/window-batcher.js';
import type { WindowCommit } from '../src/sync/window-commit.js';
import type { WriterThread } from '../src/sync/writer-thread-client.js';
import { ownCpuSeconds } from './cpu-time.js';

/** What an upsert-only pass wrote and how long it took. */
export interface UpsertOnlyResult {
  /**
   * Wall time of the writing alone (rows read and converted beforehand): card pages on the main
   * connection, transaction windows through the sync's batcher and writer thread.
   */
  readonly writeSeconds: number;
  /** CPU seconds of the process (both threads) while writing. */
  readonly writeCpuSeconds: number;
  /** Wall time of the pass: reading the sandbox's file, converting and writing. */
  readonly totalSeconds: number;
  readonly cards: number;
  readonly transactions: number;
  /** Card pages and transaction windows handed to the writers. */
  readonly chunks: number;
  /** SQLite transactions committed (the sync's batcher puts several windows in one). */
  readonly commits: number;
}

/** The mirror's own opening and writers, from the same build the CLI runs. */
export interface MirrorModules {
  openMirror(file: string): Mirror;
  startWriterThread(file: string): WriterThread;
  /** card-index.ts: a first sync lands its rows without the index by card, then builds it. */
  dropCardIndexWhileEmpty(db: Mirror['db']): boolean;
  ensureCardIndex(db: Mirror['db']): boolean;
}

/** Options of {@link upsertOnly}. */
export interface UpsertOnlyOptions {
  /** The sandbox's SQLite state file (`<stateDir>/sandbox.sqlite`), opened read-only. */
  readonly sandboxFile: string;
  /** A fresh mirror file. */
  readonly mirrorFile: string;
  readonly merchantId: string;
  readonly mirror: MirrorModules;
  /** Transactions per window: 20 pages of 100, the most a window holds before it is split. */
  readonly transactionChunk?: number;
  /** Cards per committed chunk: the sync lands the card list page by page. */
  readonly cardChunk?: number;
}

interface CardRow {
  cardId: string;
  merchantId: string;
  offeringId: string;
  lastFour: string;
  status: Card['status'];
  balanceMinor: number;
  currency: string;
  createdAt: number;
}

interface TransactionRow {
  transactionId: string;
  cardId: string;
  tradeNo: string;
  type: Transaction['type'];
  status: Transaction['status'];
  amountMinor: number;
  feeMinor: number;
  currency: string;
  merchantName: string;
  createdAt: number;
  amountText: string | null;
}

// Keyset pages in the order the API lists them (cards) or the order the windows advance
// (transactions), so no query ever skips an offset.
const CARDS = `SELECT card_id AS cardId, merchant_id AS merchantId, offering_id AS offeringId,
  last_four AS lastFour, status, balance_minor AS balanceMinor, currency, created_at AS createdAt
  FROM cards WHERE merchant_id = @merchantId
    AND (created_at < @at OR (created_at = @at AND card_id < @id))
  ORDER BY created_at DESC, card_id DESC LIMIT @limit`;

const TRANSACTIONS = `SELECT transaction_id AS transactionId, card_id AS cardId, trade_no AS tradeNo,
  type, status, amount_minor AS amountMinor, fee_minor AS feeMinor, currency,
  merchant_name AS merchantName, created_at AS createdAt, amount_text AS amountText
  FROM transactions WHERE merchant_id = @merchantId AND posted = 1
    AND (created_at > @at OR (created_at = @at AND transaction_id > @id))
  ORDER BY created_at, transaction_id LIMIT @limit`;

/**
 * The database limit of a sync: the rows the upstream serves (posted transactions, every card),
 * read straight from the sandbox's SQLite file, turned into the contract's shapes the way the
 * sandbox presents them, and landed in a fresh mirror the way the sync lands them: cards a page
 * at a time through the card writer, one SQLite transaction per page; transactions as windows
 * of `transactionChunk` rows handed to the engine's own {@link WindowBatcher}, which decides how
 * many windows share a commit; the index by card left out until the rows are in, then built
 * (timed), as a first sync does. No network.
 */
export async function upsertOnly(options: UpsertOnlyOptions): Promise<UpsertOnlyResult> {
  const started = performance.now();
  const source = new Database(options.sandboxFile, { readonly: true, fileMustExist: true });
  const context: WriteContext = {
    merchantId: options.merchantId,
    runId: 'bench-upsert-only',
    observedAt: new Date().toISOString(),
  };
  // Everything is read and converted first, so the timed part is the writing alone.
  let cardPages: Card[][];
  let windows: WindowCommit[];
  try {
    cardPages = readCardPages(source, options.merchantId, options.cardChunk ?? 100);
    windows = readWindows(source, options.merchantId, options.transactionChunk ?? 2_000);
  } finally {
    source.close();
  }
  const mirror = options.mirror.openMirror(options.mirrorFile);
  // As the sync's first run does: the rows land without the index by card, built at the end.
  options.mirror.dropCardIndexWhileEmpty(mirror.db);
  const writerThread = options.mirror.startWriterThread(options.mirrorFile);
  let commits = 0;
  const counted = {
    commit: (runId: string, batch: readonly WindowCommit[]) => {
      commits += 1;
      return writerThread.commit(runId, batch);
    },
  };
  try {
    const cpu0 = ownCpuSeconds();
    const t0 = performance.now();
    // Card pages land on the writer thread in batches of 50 pages, as the sync's card batcher
    // sends them.
    for (let i = 0; i < cardPages.length; i += 50) {
      const pages = cardPages.slice(i, i + 50).map((cards) => ({
        merchantId: options.merchantId,
        cards,
        quarantined: [],
        observedAt: context.observedAt,
      }));
      await writerThread.commitCards(context.runId, pages);
      commits += 1;
    }
    const batcher = windowBatcher(counted, {
      runId: context.runId,
      counts: emptyMerchantResult(options.merchantId).transactions,
    });
    for (const window of windows) await batcher.add(window, window.rows.length);
    await batcher.flush();
    options.mirror.ensureCardIndex(mirror.db);
    const writeSeconds = (performance.now() - t0) / 1000;
    return {
      writeSeconds,
      writeCpuSeconds: ownCpuSeconds() - cpu0,
      totalSeconds: (performance.now() - started) / 1000,
      cards: cardPages.reduce((n, page) => n + page.length, 0),
      transactions: windows.reduce((n, window) => n + window.rows.length, 0),
      chunks: cardPages.length + windows.length,
      commits,
    };
  } finally {
    await writerThread.close();
    await mirror.close();
  }
}

function readCardPages(source: Database, merchantId: string, limit: number): Card[][] {
  const cardPage = source.prepare(CARDS);
  const pages: Card[][] = [];
  let cursor = { at: Number.MAX_SAFE_INTEGER, id: '' };
  for (;;) {
    const rows = cardPage.all({ merchantId, ...cursor, limit }) as CardRow[];
    const last = rows.at(-1);
    if (!last) return pages;
    pages.push(rows.map(toCard));
    cursor = { at: last.createdAt, id: last.cardId };
  }
}

function readWindows(source: Database, merchantId: string, limit: number): WindowCommit[] {
  const txnPage = source.prepare(TRANSACTIONS);
  const windows: WindowCommit[] = [];
  // Consecutive windows touch end to start, so the done ranges merge into one as the sync's do.
  let rangeStart: number | undefined;
  let cursor = { at: Number.MIN_SAFE_INTEGER, id: '' };
  for (;;) {
    const rows = txnPage.all({ merchantId, ...cursor, limit }) as TransactionRow[];
    const first = rows[0];
    const last = rows.at(-1);
    if (!first || !last) return windows;
    const batch = rows.map(toTransaction);
    windows.push({
      merchantId,
      kind: 'history',
      range: { start: rangeStart ?? first.createdAt, end: last.createdAt },
      rows: batch,
      quarantined: [],
      expected: batch.length,
      fetched: batch.length,
      attempts: 1,
      startedAt: 0,
      finishedAt: 0,
      readAt: 0,
      markDone: true,
    });
    rangeStart = last.createdAt + 1;
    cursor = { at: last.createdAt, id: last.transactionId };
  }
}

const exponents = new Map<string, number>();

function money(minor: number, currency: string): string {
  let exponent = exponents.get(currency);
  if (exponent === undefined) {
    exponent = currencyExponent(currency);
    exponents.set(currency, exponent);
  }
  return formatMinor(minor, exponent);
}

function toCard(row: CardRow): Card {
  return {
    cardId: row.cardId,
    merchantId: row.merchantId,
    cardOfferingId: row.offeringId,
    lastFour: row.lastFour,
    status: row.status,
    balance: money(row.balanceMinor, row.currency),
    currency: row.currency,
    createdAt: new Date(row.createdAt).toISOString(),
  };
}

function toTransaction(row: TransactionRow): Transaction {
  return {
    transactionId: row.transactionId,
    cardId: row.cardId,
    tradeNo: row.tradeNo,
    type: row.type,
    status: row.status,
    amount: row.amountText ?? money(row.amountMinor, row.currency),
    currency: row.currency,
    merchantName: row.merchantName,
    fee: money(row.feeMinor, row.currency),
    createdAt: new Date(row.createdAt).toISOString(),
  };
}
