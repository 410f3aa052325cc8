import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientCard, readAllPages } from '../../support/client-view.js';
import { startTestSandbox, type TestSandbox } from '../../support/test-sandbox.js';

/** Both runs generate against the same instant: the service clock is pinned to it. */
const NOW = Date.parse('2026-11-21T02:00:00.000Z');

const WORLD = { cards: 200, transactions: 2_000, days: 30, anomaliesPerCode: 1 } as const;

async function startWorld(seed: string): Promise<TestSandbox> {
  return startTestSandbox({
    seed,
    merchants: 2,
    currencies: ['USD', 'JPY'],
    wallClock: () => NOW,
    world: WORLD,
  });
}

/** Everything a client can read of a world (API keys aside), plus its files' contents. */
async function dump(t: TestSandbox) {
  const merchants = [];
  for (const [i, access] of t.sandbox.merchants.entries()) {
    const api = t.merchants[i];
    if (!api || !access.journalFile) throw new Error(`merchant ${i} has no client or no journal`);
    const offerings = await api.get('/merchants/offerings');
    const balance = await api.get('/merchants/balance');
    expect(offerings.status, offerings.text).toBe(200);
    expect(balance.status, balance.text).toBe(200);
    merchants.push({
      merchantId: access.merchantId,
      currency: access.currency,
      offerings: offerings.body.data,
      balance: balance.body.data,
      cards: await readAllPages<ClientCard>(api, '/cards'),
      transactions: await readAllPages(api, '/transactions'),
      journal: await readFile(access.journalFile, 'utf8'),
    });
  }
  if (!t.sandbox.groundTruthFile) throw new Error('no ground-truth manifest was written');
  return {
    merchants,
    groundTruth: await readFile(t.sandbox.groundTruthFile, 'utf8'),
    counts: {
      cards: t.sandbox.world?.cards,
      transactions: t.sandbox.world?.transactions,
      orders: t.sandbox.world?.orders,
    },
  };
}

type WorldDump = Awaited<ReturnType<typeof dump>>;

const cardIds = (d: WorldDump) => d.merchants.flatMap((m) => m.cards.map((c) => c.cardId));

describe('world generation is deterministic', () => {
  const sandboxes: TestSandbox[] = [];
  let first: WorldDump;
  let again: WorldDump;
  let other: WorldDump;
  beforeAll(async () => {
    for (const seed of ['determinism-a', 'determinism-a', 'determinism-b']) {
      sandboxes.push(await startWorld(seed));
    }
    [first, again, other] = (await Promise.all(sandboxes.map(dump))) as [
      WorldDump,
      WorldDump,
      WorldDump,
    ];
  }, 60_000);
  afterAll(async () => {
    await Promise.all(sandboxes.map((t) => t.close()));
  });

  it('reads a full world back: every card, transaction and journal row of both merchants', () => {
    expect(first.merchants).toHaveLength(2);
    expect(cardIds(first)).toHaveLength(WORLD.cards + 15 * WORLD.anomaliesPerCode);
    const transactions = first.merchants.reduce((n, m) => n + m.transactions.length, 0);
    // Late-posted debits are not visible yet; the planted ones add a few.
    expect(transactions).toBeGreaterThan(WORLD.transactions * 0.9);
    for (const m of first.merchants) expect(m.journal.split('\n').length).toBeGreaterThan(100);
  });

  it('gives identical data for the same seed and options (API keys aside)', () => {
    const [a, b] = sandboxes;
    expect(a?.sandbox.merchants[0]?.apiKey).not.toBe(b?.sandbox.merchants[0]?.apiKey);
    expect(again.counts).toEqual(first.counts);
    expect(again.groundTruth).toBe(first.groundTruth);
    for (const [i, m] of first.merchants.entries()) {
      const n = again.merchants[i];
      expect(n?.merchantId).toBe(m.merchantId);
      expect(n?.offerings).toEqual(m.offerings);
      expect(n?.balance).toEqual(m.balance);
      expect(n?.cards).toEqual(m.cards);
      expect(n?.transactions).toEqual(m.transactions);
      expect(n?.journal).toBe(m.journal);
    }
    expect(again).toEqual(first);
  });

  it('gives different data for a different seed', () => {
    const ids = new Set(cardIds(first));
    expect(cardIds(other).filter((id) => ids.has(id))).toEqual([]);
    expect(other.merchants.map((m) => m.merchantId)).not.toEqual(
      first.merchants.map((m) => m.merchantId),
    );
    for (const [i, m] of first.merchants.entries()) {
      expect(other.merchants[i]?.journal).not.toBe(m.journal);
      expect(other.merchants[i]?.balance).not.toEqual(m.balance);
    }
    expect(other.groundTruth).not.toBe(first.groundTruth);
  });
});
