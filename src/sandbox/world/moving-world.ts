import { changeTransactionStatus, recordTransaction } from '../activity/card-activity.js';
import { availableBalance, networkDecision } from '../control/card-network.js';
import type { DueEvents } from '../due-events.js';
import { SeededRandom } from '../random/seeded-random.js';
import type { SandboxContext } from '../sandbox-context.js';
import { readMeta } from '../store/database.js';
import type { CardRecord, TransactionRecord } from '../store/records.js';
import { scaledMinor } from './currency-scale.js';
import { MERCHANT_NAMES } from './merchant-names.js';

const TICK_MS = 100;

/** The `meta` key holding the ids of the cards built for planted anomalies (a JSON array). */
export const PLANTED_CARDS_KEY = 'planted-cards';

/**
 * Keeps the world moving while the service runs: new purchases, refunds and verifications on
 * active cards, pending ones progressing to their next status, and a share posting late, at a
 * set rate. Every change goes through the same domain functions as the control surface, so the
 * ledger stays consistent and the world stays free of findings. The cards built for planted
 * anomalies (and the missing card of an orphan) are left alone: a purchase on a card whose FREEZE
 * was lost, or a stale PENDING purchase moved on, would make the ground-truth manifest wrong.
 * Choices are seeded: the same seed and the same state give the same next events.
 */
export class MovingWorld {
  readonly #ctx: SandboxContext;
  readonly #events: DueEvents;
  readonly #perTick: number;
  readonly #random: SeededRandom;
  readonly #planted: ReadonlySet<string>;
  #timer: NodeJS.Timeout | undefined;
  #carry = 0;

  constructor(ctx: SandboxContext, events: DueEvents, perSecond: number) {
    this.#ctx = ctx;
    this.#events = events;
    this.#perTick = (perSecond * TICK_MS) / 1000;
    this.#random = new SeededRandom(ctx.seed, 'moving-world');
    const planted = readMeta(ctx.store.db, PLANTED_CARDS_KEY);
    this.#planted = new Set(planted === undefined ? [] : (JSON.parse(planted) as string[]));
  }

  /** Start producing activity. */
  start(): void {
    this.#timer = setInterval(() => {
      this.#carry += this.#perTick;
      const count = Math.floor(this.#carry);
      this.#carry -= count;
      try {
        this.step(count);
      } catch (err) {
        this.#ctx.logger.error({ err }, 'moving world step failed');
      }
    }, TICK_MS);
    this.#timer.unref();
  }

  /** Stop producing activity. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  /** Produce `count` events now. Returns how many changed something. */
  step(count: number): number {
    let changed = 0;
    this.#ctx.store.atomically(() => {
      for (let i = 0; i < count; i++) {
        const roll = this.#random.int(0, 99);
        const done =
          roll < 45
            ? this.#purchase()
            : roll < 80
              ? this.#progress()
              : roll < 90
                ? this.#refund()
                : this.#verification();
        if (done) changed++;
      }
    });
    this.#events.arm();
    return changed;
  }

  /** A row of `table` matching `where`, picked at a seeded rowid (the first match at or after it). */
  #pickRow<T>(table: 'cards' | 'transactions', select: string, where: string): T | undefined {
    const { db } = this.#ctx.store;
    const { max } = db.prepare(`SELECT max(rowid) AS max FROM ${table}`).get() as {
      max: number | null;
    };
    if (!max) return undefined;
    const from = this.#random.int(1, max);
    const sql = `SELECT ${select} FROM ${table} WHERE ${where}`;
    return (db.prepare(`${sql} AND rowid >= ? ORDER BY rowid LIMIT 1`).get(from) ??
      db.prepare(`${sql} ORDER BY rowid LIMIT 1`).get()) as T | undefined;
  }

  #activeCard(): CardRecord | undefined {
    const row = this.#pickRow<{ cardId: string }>(
      'cards',
      'card_id AS cardId',
      "status = 'ACTIVE'",
    );
    return row && !this.#planted.has(row.cardId)
      ? this.#ctx.store.cards.get(row.cardId)
      : undefined;
  }

  #purchase(): boolean {
    const card = this.#activeCard();
    const available = card ? availableBalance(this.#ctx, card) : 0;
    if (!card || available < scaledMinor(200, card.currency)) return false;
    const amount = this.#random.int(
      scaledMinor(100, card.currency),
      Math.min(available, scaledMinor(20_000, card.currency)),
    );
    const now = this.#ctx.clock.now();
    const late = this.#random.chance(0.1);
    const decided = networkDecision(this.#ctx, card, {
      type: 'PURCHASE',
      status: 'PENDING',
      amountMinor: amount,
      feeMinor: 0,
      tradeNo: undefined,
    });
    recordTransaction(this.#ctx, {
      cardId: card.cardId,
      type: 'PURCHASE',
      status: decided.status,
      amountMinor: amount,
      feeMinor: 0,
      currency: card.currency,
      merchantName: this.#random.pick(MERCHANT_NAMES),
      tradeNo: this.#ctx.ids.next('trd'),
      createdAt: now,
      visibleAt: late ? now + this.#random.int(1_000, 120_000) : now,
    });
    return true;
  }

  #progress(): boolean {
    const row = this.#pickRow<{ transactionId: string }>(
      'transactions',
      'transaction_id AS transactionId',
      "posted = 1 AND type IN ('PURCHASE', 'REFUND') AND status IN ('PENDING', 'COMPLETED')",
    );
    const txn = row ? this.#ctx.store.transactions.get(row.transactionId) : undefined;
    if (!txn || this.#planted.has(txn.cardId)) return false;
    // A purchase that was already (partly) refunded or reversed is captured, never declined:
    // declining it would leave its refunds returning more than was bought (OVER_REFUND).
    const next =
      txn.status === 'COMPLETED'
        ? 'SETTLED'
        : txn.type === 'PURCHASE' &&
            this.#random.chance(0.05) &&
            this.#returns(txn.cardId, txn.tradeNo).count === 0
          ? 'DECLINED'
          : 'COMPLETED';
    changeTransactionStatus(this.#ctx, txn, next);
    return true;
  }

  /** The refunds and reversals of a card's trade that are not declined: how many, and their sum. */
  #returns(cardId: string, tradeNo: string): { count: number; totalMinor: number } {
    return this.#ctx.store.db
      .prepare(
        "SELECT count(*) AS count, coalesce(sum(amount_minor), 0) AS totalMinor FROM transactions WHERE card_id = ? AND trade_no = ? AND type IN ('REFUND', 'REVERSAL') AND status <> 'DECLINED'",
      )
      .get(cardId, tradeNo) as { count: number; totalMinor: number };
  }

  #refund(): boolean {
    const row = this.#pickRow<{ transactionId: string }>(
      'transactions',
      'transaction_id AS transactionId',
      "posted = 1 AND type = 'PURCHASE' AND status IN ('COMPLETED', 'SETTLED')",
    );
    const purchase: TransactionRecord | undefined = row
      ? this.#ctx.store.transactions.get(row.transactionId)
      : undefined;
    const card = purchase ? this.#ctx.store.cards.get(purchase.cardId) : undefined;
    if (!purchase || !card || card.status !== 'ACTIVE' || this.#planted.has(card.cardId))
      return false;
    const left = purchase.amountMinor - this.#returns(card.cardId, purchase.tradeNo).totalMinor;
    if (left <= 0) return false;
    const amount = this.#random.int(1, left);
    // A second refund of the same amount on the same trade would be a DUPLICATE_TRANSACTION.
    const twin = this.#ctx.store.db
      .prepare(
        "SELECT 1 FROM transactions WHERE card_id = ? AND trade_no = ? AND type = 'REFUND' AND amount_minor = ?",
      )
      .get(card.cardId, purchase.tradeNo, amount);
    if (twin) return false;
    recordTransaction(this.#ctx, {
      cardId: card.cardId,
      type: 'REFUND',
      status: 'PENDING',
      amountMinor: amount,
      feeMinor: 0,
      currency: card.currency,
      merchantName: purchase.merchantName,
      tradeNo: purchase.tradeNo,
      createdAt: this.#ctx.clock.now(),
      visibleAt: this.#ctx.clock.now(),
    });
    return true;
  }

  #verification(): boolean {
    const card = this.#activeCard();
    if (!card) return false;
    recordTransaction(this.#ctx, {
      cardId: card.cardId,
      type: 'VERIFICATION',
      status: 'COMPLETED',
      amountMinor: 0,
      feeMinor: 0,
      currency: card.currency,
      merchantName: this.#random.pick(MERCHANT_NAMES),
      tradeNo: this.#ctx.ids.next('trd'),
      createdAt: this.#ctx.clock.now(),
      visibleAt: this.#ctx.clock.now(),
    });
    return true;
  }
}
