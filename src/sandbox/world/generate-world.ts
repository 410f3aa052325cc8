import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { currencyExponent } from '../../money/currency.js';
import { formatMinor, type Minor } from '../../money/decimal.js';
import { issueCardDetails } from '../ledger/card-details.js';
import type { IdPrefix } from '../random/id-generator.js';
import { SeededRandom } from '../random/seeded-random.js';
import type { SandboxContext } from '../sandbox-context.js';
import { dropIndexes, storeInTimeOrder } from '../store/database.js';
import type { MerchantRecord, OfferingRecord } from '../store/records.js';
import { SANDBOX_INDEXES } from '../store/schema.js';
import { plantAnomalies } from './anomalies/plant-anomalies.js';
import { type CardLife, type LifeSources, liveCard } from './card-life.js';
import { scaledMinor } from './currency-scale.js';
import type { GroundTruth } from './ground-truth.js';
import { JournalFile } from './journal-file.js';
import { journalRow } from './journal-row.js';
import { WorldWriter } from './world-writer.js';

const DAY = 86_400_000;
const CARDS_PER_BATCH = 2_000;

/** What history to generate. */
export interface WorldOptions {
  /** Cards across all merchants (split evenly). */
  readonly cards: number;
  /** Transactions across all cards (order FEE records included). */
  readonly transactions: number;
  /** How many days of history, ending at the service clock's now. */
  readonly days: number;
  /** Planted findings per check code; 0 for a clean world. */
  readonly anomaliesPerCode: number;
  /** Where the journals and the ground-truth manifest are written. */
  readonly outDir: string;
  /** Share of money orders that fail (default 0.02). */
  readonly failureShare?: number;
  /** Share of recent card debits that post late (default 0.05). */
  readonly lateShare?: number;
  /** Stops the generation between two batches (it rejects with the signal's reason). */
  readonly signal?: AbortSignal;
}

/** What a generation produced. */
export interface GeneratedWorld {
  readonly journalFiles: Readonly<Record<string, string>>;
  readonly groundTruthFile: string | null;
  readonly groundTruth: GroundTruth | null;
  readonly cards: number;
  readonly transactions: number;
  readonly orders: number;
}

/** Ids handed out in reserved chunks: one state write per chunk, same sequence as one by one. */
function idStream(ctx: SandboxContext, prefix: IdPrefix): () => string {
  let take: (() => string) | undefined;
  let left = 0;
  return () => {
    if (left === 0) {
      take = ctx.ids.reserve(prefix, 10_000);
      left = 10_000;
    }
    left -= 1;
    return (take as () => string)();
  };
}

/** Split `total` into `parts` budgets of at least 1 that vary but add up exactly. */
function budgets(total: number, parts: number, random: SeededRandom): number[] {
  const base = Math.floor(total / parts);
  const out = Array.from({ length: parts }, (_, i) => base + (i < total % parts ? 1 : 0));
  for (let i = 0; i + 1 < parts; i += 2) {
    const a = out[i] as number;
    const shift = random.int(0, Math.max(0, a - 1));
    out[i] = a - shift;
    out[i + 1] = (out[i + 1] as number) + shift;
  }
  return out;
}

/**
 * Generate a deterministic history into a running sandbox's state: cards of every offering
 * with their orders and card activity over `days`, top-ups that fund them, each merchant's order
 * journal as its books would have it, and, on request, planted discrepancies with a
 * ground-truth manifest. The same seed and options give identical data. Memory stays bounded:
 * cards are lived and written a batch at a time, and the event loop runs between batches, so a
 * SIGTERM handler (aborting `signal`) can stop a long generation; what was written stays
 * written, and the state is then incomplete.
 */
export async function generateWorld(
  ctx: SandboxContext,
  options: WorldOptions,
): Promise<GeneratedWorld> {
  if (!Number.isInteger(options.cards) || options.cards < 0)
    throw new RangeError('cards must be a whole number');
  if (!Number.isInteger(options.transactions) || options.transactions < options.cards) {
    throw new RangeError('transactions must be a whole number, at least one per card');
  }
  const merchants = ctx.store.merchants.list();
  const offerings = new Map<string, OfferingRecord[]>(
    merchants.map((m) => [m.merchantId, ctx.store.offerings.list(m.merchantId)]),
  );
  options.signal?.throwIfAborted();
  const random = new SeededRandom(ctx.seed, 'world');
  const now = ctx.clock.now();
  const start = now - options.days * DAY;
  dropIndexes(ctx.store.db);
  const writer = new WorldWriter(ctx.store);
  const journals = new Map(
    merchants.map((m) => [
      m.merchantId,
      new JournalFile(join(options.outDir, `journal-${m.merchantId}.csv`)),
    ]),
  );
  let merchantOrderSeq = 0;
  const sources: LifeSources = {
    random,
    nextOrderNo: idStream(ctx, 'ord'),
    nextTransactionId: idStream(ctx, 'txn'),
    nextTradeNo: idStream(ctx, 'trd'),
    nextMerchantOrderNo: () => `W${String(++merchantOrderSeq).padStart(9, '0')}`,
    cardDetails: (cardId, createdAt) => issueCardDetails(ctx.seed, cardId, createdAt),
  };
  const nextCardId = idStream(ctx, 'card');
  const deltas = new Map<string, Minor>(merchants.map((m) => [m.merchantId, 0]));
  const plan = budgets(options.transactions, options.cards, random);
  let carried = 0;
  let transactions = 0;
  let orders = 0;
  let batch: CardLife[] = [];
  const flush = async () => {
    writer.writeLives(batch, now);
    for (const life of batch) {
      const merchant = life.card.merchantId;
      journals.get(merchant)?.append(life.orders.map((o) => journalRow(o, life.card.currency)));
      deltas.set(merchant, (deltas.get(merchant) ?? 0) + life.merchantDelta);
    }
    batch = [];
    await nextTurn();
    options.signal?.throwIfAborted();
  };

  let groundTruth: GroundTruth | null;
  try {
    for (let i = 0; i < options.cards; i++) {
      const merchant = merchants[i % merchants.length] as MerchantRecord;
      const offering = random.pick(offerings.get(merchant.merchantId) ?? []);
      const budget = (plan[i] as number) + carried;
      const life = liveCard(
        {
          cardId: nextCardId(),
          merchantId: merchant.merchantId,
          offering,
          issuedAt: random.int(start, now - 2 * 3_600_000),
          transactionBudget: budget,
          now,
          failureShare: options.failureShare ?? 0.02,
          lateShare: options.lateShare ?? 0.05,
        },
        sources,
      );
      carried = budget - life.transactions.length;
      transactions += life.transactions.length;
      orders += life.orders.length;
      batch.push(life);
      if (batch.length >= CARDS_PER_BATCH) await flush();
    }
    await flush();
    fundMerchants(ctx, merchants, deltas, journals, random, start);
    orders += merchants.length;
    groundTruth =
      options.anomaliesPerCode > 0
        ? plantAnomalies(ctx, {
            writer,
            journals,
            now,
            perCode: options.anomaliesPerCode,
            nextOrderNo: sources.nextOrderNo,
            nextTransactionId: sources.nextTransactionId,
            nextTradeNo: sources.nextTradeNo,
            nextMerchantOrderNo: sources.nextMerchantOrderNo,
            nextCardId,
          })
        : null;
  } finally {
    // Closed on an abort too: an interrupted generation must not leak descriptors.
    for (const journal of journals.values()) journal.close();
  }
  storeInTimeOrder(ctx.store.db);
  ctx.store.transactions.invalidateIndex();
  await nextTurn();
  options.signal?.throwIfAborted();
  // One index at a time: building them over a million rows takes seconds.
  for (const statement of SANDBOX_INDEXES) {
    ctx.store.db.exec(statement);
    await nextTurn();
    options.signal?.throwIfAborted();
  }
  ctx.store.transactions.invalidateIndex();
  ctx.store.cards.invalidateIndex();
  return {
    journalFiles: Object.fromEntries([...journals].map(([id, j]) => [id, j.path])),
    groundTruthFile: groundTruth ? join(options.outDir, 'ground-truth.json') : null,
    groundTruth,
    cards: options.cards,
    transactions,
    orders,
  };
}

/**
 * Give each merchant a journaled top-up before the history starts that covers everything its
 * cards drew, plus a cushion, and apply the history's net flow to its balance: the balance
 * never had to go below zero, and the journal explains every movement.
 */
function fundMerchants(
  ctx: SandboxContext,
  merchants: readonly MerchantRecord[],
  deltas: ReadonlyMap<string, Minor>,
  journals: ReadonlyMap<string, JournalFile>,
  random: SeededRandom,
  start: number,
): void {
  ctx.store.atomically(() => {
    merchants.forEach((merchant, i) => {
      const delta = deltas.get(merchant.merchantId) ?? 0;
      const drawn = Math.max(0, -delta);
      // The cushion also funds what planted anomalies draw later.
      const topUp = drawn + scaledMinor(random.int(100_000, 500_000) * 100, merchant.currency);
      ctx.store.merchants.adjustBalance(merchant.merchantId, topUp + delta);
      journals.get(merchant.merchantId)?.append([
        {
          merchantOrderNo: `TOPUP-${String(i + 1).padStart(3, '0')}-${start}`,
          kind: 'TOPUP',
          cardId: '',
          offeringId: '',
          amount: formatMinor(topUp, currencyExponent(merchant.currency)),
          currency: merchant.currency,
          submittedAt: new Date(start - 3_600_000).toISOString(),
          orderNo: '',
        },
      ]);
    });
  });
}
