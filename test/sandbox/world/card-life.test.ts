import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../src/sandbox/random/seeded-random.js';
import type { OfferingRecord } from '../../../src/sandbox/store/records.js';
import {
  type GeneratedTransaction,
  type LifeSources,
  liveCard,
} from '../../../src/sandbox/world/card-life.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-21T02:00:00.000Z');

const OFFERING: OfferingRecord = {
  id: 'off_test',
  merchantId: 'mch_test',
  position: 0,
  name: 'Test offering',
  network: 'VISA',
  type: 'VIRTUAL',
  currency: 'USD',
  minLoadMinor: 1_000,
  maxLoadMinor: 50_000_000,
  issuanceFeeMinor: 100,
  depositFeePercent: '1.5',
  requiresHolder: false,
};

function sources(seed: string): LifeSources {
  let n = 0;
  const next = (prefix: string) => () => `${prefix}_${seed}_${++n}`;
  return {
    random: new SeededRandom(seed, 'card-life-test'),
    nextOrderNo: next('ord'),
    nextTransactionId: next('txn'),
    nextTradeNo: next('trd'),
    nextMerchantOrderNo: next('mo'),
    cardDetails: () => ({
      lastFour: '4242',
      cardNumber: '4000000000004242',
      cvv: '123',
      expiryMonth: '12',
      expiryYear: '2030',
    }),
  };
}

/** The refunds of many long card lives, so every age band holds some. */
function refunds(): GeneratedTransaction[] {
  const all: GeneratedTransaction[] = [];
  for (let i = 0; i < 40; i++) {
    const life = liveCard(
      {
        cardId: `card_${String(i).padStart(12, '0')}`,
        merchantId: 'mch_test',
        offering: OFFERING,
        issuedAt: NOW - 60 * DAY,
        transactionBudget: 200,
        now: NOW,
        failureShare: 0,
        lateShare: 0,
      },
      sources(`refunds-${i}`),
    );
    all.push(...life.transactions.filter((t) => t.type === 'REFUND'));
  }
  return all;
}

describe('generated refunds settle like purchases', () => {
  const all = refunds();
  const statusesAged = (from: number, to: number) =>
    new Set(
      all.filter((t) => NOW - t.createdAt >= from && NOW - t.createdAt < to).map((t) => t.status),
    );

  it('a refund older than seven days is SETTLED, never left COMPLETED', () => {
    const old = all.filter((t) => NOW - t.createdAt >= 7 * DAY);
    expect(old.length).toBeGreaterThan(20);
    expect(new Set(old.map((t) => t.status))).toEqual(new Set(['SETTLED']));
  });

  it('a refund from one to seven days old is COMPLETED or SETTLED', () => {
    const statuses = statusesAged(DAY, 7 * DAY);
    expect(statuses.size).toBeGreaterThan(0);
    for (const status of statuses) expect(['COMPLETED', 'SETTLED']).toContain(status);
  });

  it('a refund under a day old is PENDING or COMPLETED', () => {
    for (const status of statusesAged(0, DAY)) expect(['PENDING', 'COMPLETED']).toContain(status);
  });
});
