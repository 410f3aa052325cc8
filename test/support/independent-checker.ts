/**
 * The checks of docs/findings.md computed again from nothing but what a client sees (a
 * `MerchantView`), with its own ledger and decimal arithmetic: it imports nothing from `src/`, so
 * agreeing with the generator's ground truth means something.
 */
import type { ClientCard, ClientTransaction, JournalEntry, MerchantView } from './client-view.js';
import { depositFee } from './decimal-text.js';
import { minorUnitsIn } from './minor-units.js';

/** A finding the independent checker computed, with the ids docs/findings.md names. */
export interface CheckedFinding {
  readonly check: string;
  readonly merchantId: string;
  readonly cardId?: string;
  readonly transactionId?: string;
  readonly orderNo?: string;
  readonly merchantOrderNo?: string;
  readonly tradeNo?: string;
  readonly detail: string;
}

/** Where a check stands in time. */
export interface CheckSettings {
  /** End of the synced range, epoch milliseconds. */
  readonly cutoff: number;
  readonly graceMs: number;
  readonly staleAfterMs: number;
}

/** grace 1 h, staleAfter 7 days (docs/findings.md). */
export const DEFAULT_WINDOWS = { graceMs: 3_600_000, staleAfterMs: 7 * 86_400_000 } as const;

/** How a completed order moves its card's balance: by its journal amount, in or out. */
const LEDGER_SIGN: Readonly<Record<string, bigint>> = { ISSUE: 1n, DEPOSIT: 1n, WITHDRAW: -1n };

type FindingIds = Omit<CheckedFinding, 'check' | 'merchantId' | 'detail'>;

/** What identifies a finding of each code (docs/findings.md, "identified by"). */
const IDENTITY: Readonly<Record<string, readonly (keyof FindingIds)[]>> = {
  CARD_BALANCE_MISMATCH: ['cardId'],
  ISSUANCE_FEE_MISMATCH: ['orderNo'],
  DEPOSIT_FEE_MISMATCH: ['orderNo'],
  WITHDRAWAL_FEE_MISMATCH: ['orderNo'],
  ORDER_NOT_REFLECTED: ['orderNo'],
  LOAD_OUT_OF_BOUNDS: ['orderNo'],
  DUPLICATE_TRANSACTION: ['transactionId'],
  OVER_REFUND: ['cardId', 'tradeNo'],
  ACTIVITY_ON_INACTIVE_CARD: ['transactionId'],
  NEGATIVE_BALANCE: ['cardId'],
  ORPHAN_TRANSACTION: ['transactionId'],
  STALE_PENDING: ['transactionId'],
  UNJOURNALED_CARD: ['cardId'],
};

/**
 * A finding's fingerprint: its code, merchant and identifying ids. CURRENCY_MISMATCH and
 * PRECISION_VIOLATION are identified by the transaction when they concern one, else by the card.
 */
export function fingerprintOf(
  finding: {
    readonly check: string;
    readonly merchantId: string;
  } & FindingIds,
): string {
  const keys: readonly (keyof FindingIds)[] =
    IDENTITY[finding.check] ??
    (finding.transactionId !== undefined ? ['transactionId'] : ['cardId']);
  const ids = keys.map((key) => {
    const id = finding[key];
    if (id === undefined) throw new Error(`${finding.check} finding without its ${key}`);
    return `${key}=${id}`;
  });
  return [finding.check, `merchantId=${finding.merchantId}`, ...ids].join(' ');
}

/** What a transaction does to its card's balance (reference-model section 4); null if unknown. */
function effectOf(
  type: string,
  status: string,
  amount: bigint | null,
  fee: bigint | null,
): bigint | null {
  if (status === 'DECLINED') return 0n;
  const settledLike = status === 'COMPLETED' || status === 'SETTLED';
  switch (type) {
    case 'PURCHASE':
      return amount === null || fee === null ? null : -(amount + fee);
    case 'REFUND':
    case 'REVERSAL':
      if (!settledLike) return 0n;
      return amount === null || fee === null ? null : amount - fee;
    case 'VERIFICATION':
      if (!settledLike) return 0n;
      return fee === null ? null : -fee;
    case 'FEE':
      return amount === null ? null : -amount;
    default:
      throw new Error(`unknown transaction type ${type}`);
  }
}

const at = (iso: string): number => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`${JSON.stringify(iso)} is not a timestamp`);
  return ms;
};

/** Earliest `createdAt` first, then the smallest id: the order docs/findings.md ranks records by. */
const byCreation = (a: ClientTransaction, b: ClientTransaction): number =>
  at(a.createdAt) - at(b.createdAt) ||
  (a.transactionId < b.transactionId ? -1 : a.transactionId > b.transactionId ? 1 : 0);

/**
 * Every finding of docs/findings.md that one merchant's view holds at `settings.cutoff`, except
 * MERCHANT_BALANCE_MISMATCH (it needs two balance snapshots).
 */
export function checkMerchant(view: MerchantView, settings: CheckSettings): CheckedFinding[] {
  const findings: CheckedFinding[] = [];
  const report = (check: string, ids: FindingIds, detail: string) => {
    findings.push({ check, merchantId: view.merchantId, ...ids, detail });
  };
  const offerings = new Map(view.offerings.map((o) => [o.id, o]));
  const cards = new Map(view.cards.map((c) => [c.cardId, c]));

  // PRECISION_VIOLATION, and the amounts every other check may use.
  const amount = new Map<string, bigint | null>();
  const fee = new Map<string, bigint | null>();
  for (const t of view.transactions) {
    const a = minorUnitsIn(t.amount, t.currency);
    const f = minorUnitsIn(t.fee, t.currency);
    amount.set(t.transactionId, a);
    fee.set(t.transactionId, f);
    if (a === null || f === null) {
      report(
        'PRECISION_VIOLATION',
        { transactionId: t.transactionId, cardId: t.cardId },
        `amount ${t.amount}, fee ${t.fee} in ${t.currency}`,
      );
    }
  }
  const balance = new Map<string, bigint | null>();
  for (const c of view.cards) {
    const b = minorUnitsIn(c.balance, c.currency);
    balance.set(c.cardId, b);
    if (b === null)
      report('PRECISION_VIOLATION', { cardId: c.cardId }, `balance ${c.balance} in ${c.currency}`);
  }

  // Linking: a journal order's outcome is the FEE record whose tradeNo is its orderNo.
  const feeRecord = new Map<string, ClientTransaction>();
  for (const t of [...view.transactions].sort(byCreation)) {
    if (t.type === 'FEE' && !feeRecord.has(t.tradeNo)) feeRecord.set(t.tradeNo, t);
  }
  const orders = view.journal.filter((row) => row.orderNo !== '');
  const succeeded = (record: ClientTransaction | undefined) =>
    record !== undefined && (record.status === 'COMPLETED' || record.status === 'SETTLED');
  const issueAwaited = view.journal.some(
    (row) => row.kind === 'ISSUE' && !feeRecord.get(row.orderNo),
  );
  const issueOrderOf = new Map<string, JournalEntry>();
  for (const order of orders) {
    const record = feeRecord.get(order.orderNo);
    if (order.kind === 'ISSUE' && record) issueOrderOf.set(record.cardId, order);
  }
  const journalAmount = (order: JournalEntry) => minorUnitsIn(order.amount, order.currency);
  const ids = (order: JournalEntry, record?: ClientTransaction): FindingIds => {
    const cardId = record?.cardId ?? (order.cardId || undefined);
    return {
      orderNo: order.orderNo,
      merchantOrderNo: order.merchantOrderNo,
      ...(cardId ? { cardId } : {}),
    };
  };

  // ISSUANCE_FEE_MISMATCH, DEPOSIT_FEE_MISMATCH, WITHDRAWAL_FEE_MISMATCH, LOAD_OUT_OF_BOUNDS.
  for (const order of orders) {
    const record = feeRecord.get(order.orderNo);
    const charged = record && succeeded(record) ? (amount.get(record.transactionId) ?? null) : null;
    if (order.kind === 'ISSUE') {
      const offering = offerings.get(order.offeringId);
      const load = journalAmount(order);
      if (offering && load !== null) {
        const min = minorUnitsIn(offering.minLoadAmount, offering.currency);
        const max = minorUnitsIn(offering.maxLoadAmount, offering.currency);
        if (min !== null && max !== null && (load < min || load > max)) {
          report(
            'LOAD_OUT_OF_BOUNDS',
            ids(order, record),
            `load ${order.amount} outside [${offering.minLoadAmount}, ${offering.maxLoadAmount}]`,
          );
        }
      }
      const due = offering ? minorUnitsIn(offering.issuanceFee, offering.currency) : null;
      if (record && charged !== null && due !== null && charged !== due) {
        report(
          'ISSUANCE_FEE_MISMATCH',
          { ...ids(order, record), transactionId: record.transactionId },
          `issuance fee ${record.amount}, offering says ${offering?.issuanceFee}`,
        );
      }
    } else if (order.kind === 'DEPOSIT' && record && charged !== null) {
      const offering = offerings.get(cards.get(record.cardId)?.cardOfferingId ?? '');
      const deposited = journalAmount(order);
      if (offering && deposited !== null) {
        const due = depositFee(deposited, offering.depositFeePercent);
        if (charged !== due)
          report('DEPOSIT_FEE_MISMATCH', ids(order, record), `deposit fee ${charged}, ${due} due`);
      }
    } else if (order.kind === 'WITHDRAW' && record && charged !== null && charged !== 0n) {
      report(
        'WITHDRAWAL_FEE_MISMATCH',
        ids(order, record),
        `withdrawal fee ${record.amount}, 0 due`,
      );
    }
  }

  // ORDER_NOT_REFLECTED.
  const pastGrace = (order: JournalEntry) =>
    settings.cutoff - at(order.submittedAt) > settings.graceMs;
  const ordersOfCard = new Map<string, JournalEntry[]>();
  for (const order of orders) {
    if (order.kind === 'ISSUE' || order.kind === 'TOPUP') continue;
    const list = ordersOfCard.get(order.cardId) ?? [];
    list.push(order);
    ordersOfCard.set(order.cardId, list);
  }
  for (const order of orders) {
    if (
      ['ISSUE', 'DEPOSIT', 'WITHDRAW', 'CANCEL'].includes(order.kind) &&
      pastGrace(order) &&
      !feeRecord.has(order.orderNo)
    ) {
      report(
        'ORDER_NOT_REFLECTED',
        ids(order),
        `${order.kind} submitted ${order.submittedAt}, no FEE record`,
      );
    }
  }
  // A FREEZE that failed leaves no FEE record: its card, read ACTIVE past grace with no later
  // order, or ACTIVE for a later FREEZE or CANCEL to be accepted, was never frozen by it, and it
  // stops nothing in ACTIVITY_ON_INACTIVE_CARD.
  const failedFreezes = new Set<JournalEntry>();
  for (const [cardId, cardOrders] of ordersOfCard) {
    const card = cards.get(cardId);
    // A stable sort keeps journal order among equal submission times: the later row is the later order.
    const timeline = [...cardOrders].sort((a, b) => at(a.submittedAt) - at(b.submittedAt));
    const switches = timeline.filter((o) => o.kind === 'FREEZE' || o.kind === 'UNFREEZE');
    // A FREEZE followed by an accepted FREEZE or CANCEL: the card was ACTIVE again by then.
    const stops = timeline.filter((o) => ['FREEZE', 'UNFREEZE', 'CANCEL'].includes(o.kind));
    stops.forEach((o, i) => {
      const next = stops[i + 1];
      if (o.kind === 'FREEZE' && (next?.kind === 'FREEZE' || next?.kind === 'CANCEL'))
        failedFreezes.add(o);
    });
    const latest = switches[switches.length - 1];
    if (!card || !latest || !pastGrace(latest)) continue;
    const cancelledAfter = timeline.some(
      (o) =>
        o.kind === 'CANCEL' &&
        timeline.indexOf(o) > timeline.indexOf(latest) &&
        feeRecord.get(o.orderNo)?.status !== 'DECLINED',
    );
    const expected = latest.kind === 'FREEZE' ? 'FROZEN' : 'ACTIVE';
    if (!cancelledAfter && latest.kind === 'FREEZE' && card.status === 'ACTIVE')
      failedFreezes.add(latest);
    if (!cancelledAfter && card.status !== expected) {
      report(
        'ORDER_NOT_REFLECTED',
        ids(latest),
        `${latest.kind} submitted ${latest.submittedAt}, card ${card.status}`,
      );
    }
  }

  // CARD_BALANCE_MISMATCH, NEGATIVE_BALANCE, UNJOURNALED_CARD, CURRENCY_MISMATCH of cards.
  const transactionsOf = new Map<string, ClientTransaction[]>();
  for (const t of view.transactions) {
    const list = transactionsOf.get(t.cardId) ?? [];
    list.push(t);
    transactionsOf.set(t.cardId, list);
  }
  const completedOrdersOf = new Map<string, { order: JournalEntry; sign: bigint }[]>();
  for (const order of orders) {
    const record = feeRecord.get(order.orderNo);
    const sign = LEDGER_SIGN[order.kind];
    if (!record || !succeeded(record) || sign === undefined) continue;
    const list = completedOrdersOf.get(record.cardId) ?? [];
    list.push({ order, sign });
    completedOrdersOf.set(record.cardId, list);
  }
  for (const card of view.cards) {
    const offering = offerings.get(card.cardOfferingId);
    if (offering && offering.currency !== card.currency) {
      report(
        'CURRENCY_MISMATCH',
        { cardId: card.cardId },
        `card in ${card.currency}, offering in ${offering.currency}`,
      );
    }
    const reported = balance.get(card.cardId) ?? null;
    if (reported !== null && reported < 0n)
      report('NEGATIVE_BALANCE', { cardId: card.cardId }, `balance ${card.balance}`);
    if (!issueOrderOf.has(card.cardId)) {
      // A PENDING card may be the card of an ISSUE the books hold that has no outcome yet.
      if (card.status !== 'PENDING' || !issueAwaited)
        report('UNJOURNALED_CARD', { cardId: card.cardId }, 'no linked ISSUE order in the journal');
      continue;
    }
    const expected = expectedBalance(
      card,
      completedOrdersOf.get(card.cardId) ?? [],
      transactionsOf.get(card.cardId) ?? [],
      amount,
      fee,
    );
    if (reported !== null && expected !== null && reported !== expected) {
      report(
        'CARD_BALANCE_MISMATCH',
        { cardId: card.cardId },
        `balance ${reported}, ledger says ${expected} (minor units)`,
      );
    }
  }

  // Transaction checks: CURRENCY_MISMATCH, ORPHAN_TRANSACTION, STALE_PENDING,
  // ACTIVITY_ON_INACTIVE_CARD.
  for (const t of view.transactions) {
    const card = cards.get(t.cardId);
    if (card && card.currency !== t.currency) {
      report(
        'CURRENCY_MISMATCH',
        { transactionId: t.transactionId, cardId: t.cardId },
        `${t.currency} on a ${card.currency} card`,
      );
    }
    if (!card && view.missingCards.has(t.cardId)) {
      report(
        'ORPHAN_TRANSACTION',
        { transactionId: t.transactionId, cardId: t.cardId },
        'card unknown to the merchant',
      );
    }
    if (t.status === 'PENDING' && settings.cutoff - at(t.createdAt) > settings.staleAfterMs) {
      report(
        'STALE_PENDING',
        { transactionId: t.transactionId, cardId: t.cardId },
        `PENDING since ${t.createdAt}`,
      );
    }
    if ((t.type === 'PURCHASE' || t.type === 'VERIFICATION') && t.status !== 'DECLINED') {
      const created = at(t.createdAt);
      const timeline = ordersOfCard.get(t.cardId) ?? [];
      const after = (o: JournalEntry) => created - at(o.submittedAt) > settings.graceMs;
      const inactive = timeline.some(
        (o) =>
          // A CANCEL whose FEE record is DECLINED failed: it stopped nothing.
          (o.kind === 'CANCEL' && after(o) && feeRecord.get(o.orderNo)?.status !== 'DECLINED') ||
          (o.kind === 'FREEZE' &&
            after(o) &&
            !failedFreezes.has(o) &&
            !timeline.some(
              (u) =>
                u.kind === 'UNFREEZE' &&
                at(u.submittedAt) > at(o.submittedAt) &&
                at(u.submittedAt) <= created,
            )),
      );
      if (inactive)
        report(
          'ACTIVITY_ON_INACTIVE_CARD',
          { transactionId: t.transactionId, cardId: t.cardId },
          `${t.type} at ${t.createdAt} on an inactive card`,
        );
    }
  }

  // DUPLICATE_TRANSACTION and OVER_REFUND.
  const groups = new Map<string, ClientTransaction[]>();
  const trades = new Map<
    string,
    {
      cardId: string;
      tradeNo: string;
      purchased: bigint;
      refunded: bigint;
      refunds: number;
      unknown: boolean;
    }
  >();
  for (const t of [...view.transactions].sort(byCreation)) {
    if (t.status === 'DECLINED') continue;
    const a = amount.get(t.transactionId) ?? null;
    if (a !== null) {
      const key = [t.cardId, t.type, t.tradeNo, a.toString()].join('\u0000');
      groups.set(key, [...(groups.get(key) ?? []), t]);
    }
    const tradeKey = `${t.cardId}\u0000${t.tradeNo}`;
    const trade = trades.get(tradeKey) ?? {
      cardId: t.cardId,
      tradeNo: t.tradeNo,
      purchased: 0n,
      refunded: 0n,
      refunds: 0,
      unknown: false,
    };
    if (t.type === 'PURCHASE' || t.type === 'REFUND' || t.type === 'REVERSAL') {
      if (a === null) trade.unknown = true;
      else if (t.type === 'PURCHASE') trade.purchased += a;
      else {
        trade.refunded += a;
        trade.refunds += 1;
      }
    }
    trades.set(tradeKey, trade);
  }
  for (const members of groups.values()) {
    const [first, ...later] = members;
    for (const t of later) {
      report(
        'DUPLICATE_TRANSACTION',
        { transactionId: t.transactionId, cardId: t.cardId, tradeNo: t.tradeNo },
        `same as ${first?.transactionId}`,
      );
    }
  }
  for (const trade of trades.values()) {
    if (!trade.unknown && trade.refunds > 0 && trade.refunded > trade.purchased) {
      report(
        'OVER_REFUND',
        { cardId: trade.cardId, tradeNo: trade.tradeNo },
        `refunded ${trade.refunded}, purchased ${trade.purchased} (minor units)`,
      );
    }
  }
  return findings;
}

/**
 * The balance the ledger implies for a card whose issue order is linked: 0 once CANCELLED, else
 * its completed ISSUE and DEPOSIT amounts less its completed WITHDRAW amounts (from the journal)
 * plus the effect of its visible transactions. `null` when an amount it needs is unusable.
 */
function expectedBalance(
  card: ClientCard,
  completedOrders: readonly { order: JournalEntry; sign: bigint }[],
  transactions: readonly ClientTransaction[],
  amount: ReadonlyMap<string, bigint | null>,
  fee: ReadonlyMap<string, bigint | null>,
): bigint | null {
  if (card.status === 'CANCELLED') return 0n;
  let total = 0n;
  for (const { order, sign } of completedOrders) {
    const value = minorUnitsIn(order.amount, order.currency);
    if (value === null) return null;
    total += sign * value;
  }
  for (const t of transactions) {
    const effect = effectOf(
      t.type,
      t.status,
      amount.get(t.transactionId) ?? null,
      fee.get(t.transactionId) ?? null,
    );
    if (effect === null) return null;
    total += effect;
  }
  return total;
}
