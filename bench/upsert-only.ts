import Database from 'better-sqlite3';
import type { Card, Transaction } from '../src/contract/index.js';
import { createLogger } from '../src/log/logger.js';
import type { MirrorWriters } from '../src/mirror/mirror-writers.js';
import type { Mirror } from '../src/mirror/open-mirror.js';
import type { SqliteDatabase } from '../src/mirror/sqlite-database.js';
import type { WriteContext } from '../src/mirror/transaction-writer.js';
import { currencyExponent } from '../src/money/currency.js';
import { formatMinor } from '../src/money/decimal.js';
import { SILENT_PROGRESS } from '../src/sync/progress-sink.js';
import type { MerchantSyncContext, SyncApi } from '../src/sync/sync-context.js';
import { emptyMerchantResult } from '../src/sync/sync-result.js';
import { WindowBatcher } from '../src/sync/window-batcher.js';
import { ownCpuSeconds } from './cpu-time.js';

/** What an upsert-only pass wrote and how long it took. */
export interface UpsertOnlyResult {
  /** Time inside the write calls alone (the sum over every committed chunk). */
  readonly writeSeconds: number;
  /** CPU seconds inside the write calls: below `writeSeconds` by the time spent waiting on disk. */
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
  createMirrorWriters(db: SqliteDatabase): MirrorWriters;
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
 * sandbox presents them, and landed in a fresh mirror the way the sync lands them: cards a
 * page at a time through the card writer, one SQLite transaction per page; transactions as
 * windows of `transactionChunk` rows handed to the engine's own {@link WindowBatcher}, which
 * decides how many windows share a commit. No network.
 */
export async function upsertOnly(options: UpsertOnlyOptions): Promise<UpsertOnlyResult> {
  const started = performance.now();
  const source = new Database(options.sandboxFile, { readonly: true, fileMustExist: true });
  const mirror = options.mirror.openMirror(options.mirrorFile);
  const writers = options.mirror.createMirrorWriters(mirror.db);
  const context: WriteContext = {
    merchantId: options.merchantId,
    runId: 'bench-upsert-only',
    observedAt: new Date().toISOString(),
  };
  let writeMs = 0;
  let writeCpu = 0;
  let chunks = 0;
  let commits = 0;
  const timed = (work: () => void) => {
    const cpu0 = ownCpuSeconds();
    const t0 = performance.now();
    work();
    writeMs += performance.now() - t0;
    writeCpu += ownCpuSeconds() - cpu0;
  };
  const atomically = writers.atomically;
  const counted: MirrorWriters = {
    ...writers,
    atomically: (work) => {
      commits += 1;
      return atomically(work);
    },
  };
  try {
    const cardPage = source.prepare(CARDS);
    const cardLimit = options.cardChunk ?? 100;
    let cards = 0;
    let cursor = { at: Number.MAX_SAFE_INTEGER, id: '' };
    for (;;) {
      const rows = cardPage.all({ merchantId: options.merchantId, ...cursor, limit: cardLimit });
      const last = rows.at(-1) as CardRow | undefined;
      if (!last) break;
      const batch = (rows as CardRow[]).map(toCard);
      timed(() => counted.atomically(() => writers.cards.write(batch, context)));
      chunks += 1;
      cards += batch.length;
      cursor = { at: last.createdAt, id: last.cardId };
    }

    const txnPage = source.prepare(TRANSACTIONS);
    const txnLimit = options.transactionChunk ?? 2_000;
    const batcher = new WindowBatcher(
      commitContext(counted, context.runId, options.merchantId),
      emptyMerchantResult(options.merchantId).transactions,
    );
    let transactions = 0;
    // Consecutive windows touch end to start, so the done ranges merge into one as the sync's do.
    let rangeStart: number | undefined;
    cursor = { at: Number.MIN_SAFE_INTEGER, id: '' };
    for (;;) {
      const rows = txnPage.all({ merchantId: options.merchantId, ...cursor, limit: txnLimit });
      const first = rows[0] as TransactionRow | undefined;
      const last = rows.at(-1) as TransactionRow | undefined;
      if (!first || !last) break;
      const batch = (rows as TransactionRow[]).map(toTransaction);
      const range = { start: rangeStart ?? first.createdAt, end: last.createdAt };
      timed(() =>
        batcher.add(
          {
            merchantId: options.merchantId,
            kind: 'history',
            range,
            rows: batch,
            rejected: [],
            expected: batch.length,
            fetched: batch.length,
            attempts: 1,
            startedAt: Date.now(),
            markDone: true,
          },
          batch.length,
        ),
      );
      chunks += 1;
      transactions += batch.length;
      rangeStart = last.createdAt + 1;
      cursor = { at: last.createdAt, id: last.transactionId };
    }
    timed(() => batcher.flush());
    return {
      writeSeconds: writeMs / 1000,
      writeCpuSeconds: writeCpu,
      totalSeconds: (performance.now() - started) / 1000,
      cards,
      transactions,
      chunks,
      commits,
    };
  } finally {
    source.close();
    await mirror.close();
  }
}

/** What the engine's commit path reads of a merchant's sync context (no API is called). */
function commitContext(
  writers: MirrorWriters,
  runId: string,
  merchantId: string,
): MerchantSyncContext {
  const noApi = new Proxy({} as SyncApi, {
    get: () => {
      throw new Error('the upsert-only pass has no API');
    },
  });
  return {
    api: noApi,
    writers,
    runId,
    source: merchantId,
    baseUrl: 'https://upsert-only.invalid',
    logger: createLogger({ level: 'silent' }),
    signal: new AbortController().signal,
    settings: { concurrency: 1, maxPagesPerWindow: 20, lookbackMs: 0, safetyLagMs: 0 },
    clock: Date.now,
    progress: SILENT_PROGRESS,
  };
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
