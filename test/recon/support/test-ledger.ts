/**
 * A builder of mirror state for the recon tests: offerings, cards, transactions and journal rows
 * written through the real mirror writers (and a plain INSERT for `orders`), with each card's
 * balance kept by the reference model's ledger unless a test says otherwise. Amounts are decimal
 * text; the arithmetic is the tests' own (test/support), not src/money.
 */
import type { Card, Offering, Transaction } from '../../../src/contract/index.js';
import type { OrderKind, OrderState } from '../../../src/mirror/mirror-schema.js';
import { createMirrorWriters, type MirrorWriters } from '../../../src/mirror/mirror-writers.js';
import type { SqliteDatabase } from '../../../src/mirror/sqlite-database.js';
import { textOf } from '../../support/decimal-text.js';
import { isoExponent, minorUnitsIn } from '../../support/minor-units.js';

/** When cards are read unless a test says otherwise. */
export const READ_AT = '2026-03-10T02:00:00.000Z';
/** When history starts. */
export const HISTORY_AT = '2026-03-01T00:00:00.000Z';

let sequence = 0;
const next = (prefix: string) => `${prefix}_${String(++sequence).padStart(6, '0')}`;

/** An instant `ms` after `iso`. */
export function shift(iso: string, ms: number): string {
  return new Date(Date.parse(iso) + ms).toISOString();
}

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** A journal row as a test states it; the rest is filled in. */
export interface OrderInput {
  readonly kind: OrderKind;
  readonly merchantOrderNo?: string;
  readonly cardId?: string | null;
  readonly offeringId?: string | null;
  readonly amount?: string | null;
  readonly submittedAt: string;
  readonly orderNo?: string | null;
  readonly state?: OrderState;
}

/**
 * The outcome a money order gets: its FEE record's status, or none yet. PENDING is outside the
 * model (an order's FEE record is COMPLETED or DECLINED) but counts as succeeded should it come.
 */
export type Outcome = 'COMPLETED' | 'PENDING' | 'DECLINED' | 'none';

/** Whether an order with `outcome` moved its amount: it has a FEE record, and not a DECLINED one. */
const succeeded = (outcome: Outcome) => outcome === 'COMPLETED' || outcome === 'PENDING';

/** One merchant's mirror, built up by a test. */
export class TestLedger {
  readonly db: SqliteDatabase;
  readonly merchantId: string;
  readonly currency: string;
  readonly writers: MirrorWriters;
  readonly runId = 'run-test';

  constructor(db: SqliteDatabase, options: { merchantId?: string; currency?: string } = {}) {
    this.db = db;
    this.merchantId = options.merchantId ?? 'mch_test';
    this.currency = options.currency ?? 'USD';
    this.writers = createMirrorWriters(db);
    this.writers.merchants.upsertMerchant(
      { merchantId: this.merchantId, source: 'test', baseUrl: 'https://upstream.test' },
      HISTORY_AT,
      this.currency,
    );
  }

  /** Minor units of `text` in the ledger's currency (throws when too precise). */
  minor(text: string): bigint {
    const minor = minorUnitsIn(text, this.currency);
    if (minor === null) throw new Error(`${text} is too precise for ${this.currency}`);
    return minor;
  }

  /** Decimal text of `minor` in the ledger's currency. */
  text(minor: bigint): string {
    return textOf(minor, isoExponent(this.currency));
  }

  /** An offering, written as the sync writes it (its first version seen at HISTORY_AT). */
  offering(overrides: Partial<Offering> = {}): Offering {
    const exponent = isoExponent(overrides.currency ?? this.currency);
    const money = (units: bigint) => textOf(units * 10n ** BigInt(exponent), exponent);
    const offering: Offering = {
      id: next('off'),
      name: 'Test Visa',
      network: 'VISA',
      type: 'VIRTUAL',
      currency: this.currency,
      minLoadAmount: money(10n),
      maxLoadAmount: money(5000n),
      issuanceFee: money(2n),
      depositFeePercent: '1',
      requiresHolder: false,
      ...overrides,
    };
    this.writers.offerings.write([offering], {
      merchantId: this.merchantId,
      runId: this.runId,
      observedAt: HISTORY_AT,
    });
    return offering;
  }

  /** A journal row. */
  order(input: OrderInput): { merchantOrderNo: string; orderNo: string | null } {
    const merchantOrderNo = input.merchantOrderNo ?? next('MO');
    const orderNo = input.orderNo === undefined ? next('ord') : input.orderNo;
    const amount = input.amount ?? null;
    const minor = amount === null ? null : minorUnitsIn(amount, this.currency);
    this.db
      .prepare(
        `INSERT INTO orders (merchant_order_no, merchant_id, kind, card_id, offering_id, amount,
           amount_minor, currency, submitted_at, order_no, state, source, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'import', ?, ?)`,
      )
      .run(
        merchantOrderNo,
        this.merchantId,
        input.kind,
        input.cardId ?? null,
        input.offeringId ?? null,
        amount,
        minor === null ? null : Number(minor),
        input.kind === 'FREEZE' || input.kind === 'UNFREEZE' || input.kind === 'CANCEL'
          ? null
          : this.currency,
        input.submittedAt,
        orderNo,
        input.state ?? 'IMPORTED',
        input.submittedAt,
        input.submittedAt,
      );
    return { merchantOrderNo, orderNo };
  }

  /** A transaction as the sync writes it, first seen at `seenAt` (default: when created). */
  transaction(fields: Partial<Transaction> & { cardId: string }, seenAt?: string): Transaction {
    const txn = this.draft(fields);
    this.writers.transactions.write([txn], {
      merchantId: this.merchantId,
      runId: this.runId,
      observedAt: seenAt ?? txn.createdAt,
    });
    return txn;
  }

  /** A transaction as {@link transaction} fills it in, not written. */
  draft(fields: Partial<Transaction> & { cardId: string }): Transaction {
    return {
      transactionId: next('txn'),
      tradeNo: next('trd'),
      type: 'PURCHASE',
      status: 'COMPLETED',
      amount: this.text(0n),
      fee: this.text(0n),
      currency: this.currency,
      merchantName: 'Test Shop',
      createdAt: HISTORY_AT,
      ...fields,
    };
  }

  /** A card issued from `offering` through a journaled ISSUE order, and its FEE record. */
  issue(
    offering: Offering,
    options: {
      cardId?: string;
      amount?: string;
      fee?: string;
      at?: string;
      journaled?: boolean;
      outcome?: Outcome;
    } = {},
  ): TestCard {
    const cardId = options.cardId ?? next('card');
    const at = options.at ?? shift(HISTORY_AT, HOUR);
    const amount = options.amount ?? this.text(this.minor(offering.minLoadAmount) * 10n);
    const card = new TestCard(this, cardId, offering, at);
    const outcome = options.outcome ?? 'COMPLETED';
    const { merchantOrderNo, orderNo } =
      options.journaled === false
        ? { merchantOrderNo: '', orderNo: next('ord') }
        : this.order({ kind: 'ISSUE', offeringId: offering.id, amount, submittedAt: at });
    card.issueOrderNo = orderNo as string;
    card.issueMerchantOrderNo = merchantOrderNo;
    card.settle(orderNo as string, shift(at, 2_000), outcome, options.fee ?? offering.issuanceFee);
    if (succeeded(outcome)) card.balance += this.minor(amount);
    else card.status = 'FAILED';
    return card;
  }

  /** A transaction the sync quarantined: `raw` as it arrived, never mirrored. */
  quarantine(raw: Record<string, unknown>, reason = '/amount must be string'): void {
    this.writers.quarantine.write(
      [{ resource: 'transactions', recordId: String(raw.transactionId ?? ''), reason, raw }],
      { merchantId: this.merchantId, runId: this.runId, observedAt: READ_AT },
    );
  }

  /** A merchant balance snapshot read at `at`. */
  snapshot(balance: string, at: string): void {
    this.writers.merchants.addBalance(
      { balance, currency: this.currency },
      { merchantId: this.merchantId, runId: `run-${at}`, observedAt: at },
    );
  }

  /** Mark `[start, end]` synced (as a completed lookback would), and a tail up to `tailEnd`. */
  synced(start: string, end: string, tailEnd?: string): void {
    this.db
      .prepare('INSERT INTO sync_progress (merchant_id, start_at, end_at) VALUES (?, ?, ?)')
      .run(this.merchantId, start, end);
    if (tailEnd)
      this.writers.runs.addWindow({
        runId: this.runId,
        merchantId: this.merchantId,
        kind: 'tail',
        startAt: end,
        endAt: tailEnd,
        filter: null,
        expected: 0,
        fetched: 0,
        upserted: 0,
        attempts: 1,
        durationMs: 1,
        outcome: 'done',
        finishedAt: tailEnd,
      });
  }
}

/** A card whose balance follows the ledger as the test adds its history. */
export class TestCard {
  readonly ledger: TestLedger;
  readonly cardId: string;
  readonly offering: Offering;
  readonly createdAt: string;
  issueOrderNo = '';
  issueMerchantOrderNo = '';
  status = 'ACTIVE';
  balance = 0n;

  constructor(ledger: TestLedger, cardId: string, offering: Offering, createdAt: string) {
    this.ledger = ledger;
    this.cardId = cardId;
    this.offering = offering;
    this.createdAt = createdAt;
  }

  /** The FEE record of order `orderNo`: charged unless DECLINED (0), none yet. */
  settle(orderNo: string, at: string, outcome: Outcome, fee: string): Transaction | undefined {
    if (outcome === 'none') return undefined;
    const amount = succeeded(outcome) ? fee : this.ledger.text(0n);
    // A fee too precise for the currency moves nothing the tests can count.
    if (succeeded(outcome)) this.balance -= minorUnitsIn(fee, this.ledger.currency) ?? 0n;
    return this.ledger.transaction({
      cardId: this.cardId,
      tradeNo: orderNo,
      type: 'FEE',
      status: outcome,
      amount,
      merchantName: 'Card issuer',
      createdAt: at,
    });
  }

  /** A journaled money order on the card and its FEE record. */
  money(
    kind: 'DEPOSIT' | 'WITHDRAW',
    amount: string,
    at: string,
    options: { fee?: string; outcome?: Outcome; orderNo?: string | null } = {},
  ): { orderNo: string | null; merchantOrderNo: string; fee?: Transaction } {
    const order = this.ledger.order({
      kind,
      cardId: this.cardId,
      amount,
      submittedAt: at,
      ...(options.orderNo === undefined ? {} : { orderNo: options.orderNo }),
    });
    const outcome = options.outcome ?? 'COMPLETED';
    const fee = options.fee ?? this.ledger.text(0n);
    const record =
      order.orderNo === null
        ? undefined
        : this.settle(order.orderNo, shift(at, 2_000), outcome, fee);
    if (succeeded(outcome)) {
      const sign = kind === 'DEPOSIT' ? 1n : -1n;
      this.balance += sign * this.ledger.minor(amount);
    }
    return { ...order, ...(record ? { fee: record } : {}) };
  }

  /** A card transaction; it moves the balance as reference-model section 4 says. */
  activity(fields: Partial<Transaction>, seenAt?: string): Transaction {
    const txn = this.ledger.transaction({ ...fields, cardId: this.cardId }, seenAt);
    this.balance += effect(txn, this.ledger.currency);
    return txn;
  }

  /**
   * Many card transactions in one write (a test of a thousand rows need not commit a thousand
   * times); each moves the balance as {@link activity} does.
   */
  activities(list: readonly Partial<Transaction>[]): Transaction[] {
    const txns = list.map((fields) => this.ledger.draft({ ...fields, cardId: this.cardId }));
    // First seen when created, as {@link activity} writes them.
    const byCreation = new Map<string, Transaction[]>();
    for (const txn of txns) {
      const batch = byCreation.get(txn.createdAt) ?? [];
      byCreation.set(txn.createdAt, batch);
      batch.push(txn);
    }
    for (const [observedAt, batch] of byCreation)
      this.ledger.writers.transactions.write(batch, {
        merchantId: this.ledger.merchantId,
        runId: this.ledger.runId,
        observedAt,
      });
    for (const txn of txns) this.balance += effect(txn, this.ledger.currency);
    return txns;
  }

  /** A journaled FREEZE, UNFREEZE or CANCEL (a CANCEL leaves its FEE record and zeroes the card). */
  switchTo(
    kind: 'FREEZE' | 'UNFREEZE' | 'CANCEL',
    at: string,
    options: { reflected?: boolean } = {},
  ): { orderNo: string | null; merchantOrderNo: string } {
    const order = this.ledger.order({ kind, cardId: this.cardId, submittedAt: at });
    if (options.reflected === false) return order;
    if (kind === 'CANCEL') {
      this.settle(order.orderNo as string, shift(at, 2_000), 'COMPLETED', this.ledger.text(0n));
      this.status = 'CANCELLED';
      this.balance = 0n;
    } else this.status = kind === 'FREEZE' ? 'FROZEN' : 'ACTIVE';
    return order;
  }

  /** Write the card as a sync read it at `observedAt` (ledger balance unless overridden). */
  write(overrides: Partial<Card> = {}, observedAt = READ_AT): Card {
    const card: Card = {
      cardId: this.cardId,
      merchantId: this.ledger.merchantId,
      cardOfferingId: this.offering.id,
      lastFour: '4242',
      status: this.status as Card['status'],
      balance: this.ledger.text(this.balance),
      currency: this.ledger.currency,
      createdAt: this.createdAt,
      ...overrides,
    };
    this.ledger.writers.cards.write([card], {
      merchantId: this.ledger.merchantId,
      runId: this.ledger.runId,
      observedAt,
    });
    return card;
  }
}

/** What a transaction does to its card's balance (reference-model section 4), in minor units. */
function effect(t: Transaction, currency: string): bigint {
  if (t.status === 'DECLINED') return 0n;
  const amount = minorUnitsIn(t.amount, currency) ?? 0n;
  const fee = minorUnitsIn(t.fee, currency) ?? 0n;
  const moved = t.status === 'COMPLETED' || t.status === 'SETTLED';
  switch (t.type) {
    case 'PURCHASE':
      return -(amount + fee);
    case 'FEE':
      return -amount;
    case 'REFUND':
    case 'REVERSAL':
      return moved ? amount - fee : 0n;
    case 'VERIFICATION':
      return moved ? -fee : 0n;
  }
}

let files = 0;

/** A ledger in a fresh mirror file of the test's temp folder. */
export function openLedger(
  temp: { open(name?: string): { db: SqliteDatabase } },
  options: { merchantId?: string; currency?: string } = {},
): TestLedger {
  files += 1;
  return new TestLedger(temp.open(`ledger-${files}.sqlite`).db, options);
}
