import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMerchantView } from '../../support/client-view.js';
import {
  checkMerchant,
  DEFAULT_WINDOWS,
  fingerprintOf,
} from '../../support/independent-checker.js';
import { startTestSandbox, type TestSandbox } from '../../support/test-sandbox.js';

interface Txn {
  transactionId: string;
  status: string;
  type: string;
  createdAt: string;
}

async function allTransactions(t: TestSandbox): Promise<Map<string, Txn>> {
  const api = t.merchants[0]!;
  const seen = new Map<string, Txn>();
  for (let page = 1; ; page++) {
    const response = await api.get('/transactions', { query: { limit: 100, page } });
    for (const txn of response.body.data as Txn[]) seen.set(txn.transactionId, txn);
    if (page >= response.body.pagination.totalPages) return seen;
  }
}

describe('a moving world', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    // A high rate for the timer, but the test drives steps itself so it never waits on time.
    t = await startTestSandbox({
      merchants: 1,
      seed: 'moving',
      world: { cards: 60, transactions: 600, days: 10, anomaliesPerCode: 0 },
      activityPerSecond: 1,
    });
    t.sandbox.movingWorld?.stop();
  });
  afterAll(async () => t.close());

  it('adds transactions, moves statuses on, and posts some late, while reads see a consistent ledger', async () => {
    const world = t.sandbox.movingWorld;
    expect(world).not.toBeNull();
    const before = await allTransactions(t);
    const changed = world!.step(400);
    expect(changed).toBeGreaterThan(300);
    const after = await allTransactions(t);
    const added = [...after.keys()].filter((id) => !before.has(id));
    const progressed = [...before.values()].filter(
      (txn) => after.get(txn.transactionId)?.status !== txn.status,
    );
    expect(added.length).toBeGreaterThan(100);
    expect(progressed.length).toBeGreaterThan(50);
    // Late postings: invisible now, visible once the clock passes them.
    await t.control.post('/_control/clock', { advanceMs: 5 * 60_000 });
    const later = await allTransactions(t);
    const posted = [...later.keys()].filter((id) => !after.has(id));
    expect(posted.length).toBeGreaterThan(0);
    for (const id of posted) {
      const createdAt = Date.parse(later.get(id)!.createdAt);
      expect(createdAt).toBeLessThanOrEqual(Date.now() + 5 * 60_000);
    }
    // No card was driven below zero by the world's own activity.
    const cards = await t.merchants[0]!.get('/cards', { query: { limit: 100 } });
    for (const card of cards.body.data as { balance: string }[])
      expect(card.balance.startsWith('-')).toBe(false);
  });

  it('produces activity on its own timer when started', async () => {
    const world = t.sandbox.movingWorld!;
    const api = t.merchants[0]!;
    const before = (await api.get('/transactions', { query: { limit: 1 } })).body.pagination
      .total as number;
    world.start();
    try {
      let total = before;
      for (let i = 0; i < 100 && total === before; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        total = (await api.get('/transactions', { query: { limit: 1 } })).body.pagination.total;
      }
      expect(total).toBeGreaterThan(before);
    } finally {
      world.stop();
    }
  });
});

describe('a moving world over a generated history with recent refunded purchases', () => {
  const NOW = Date.parse('2026-11-21T02:00:00.000Z');
  let t: TestSandbox;
  beforeAll(async () => {
    // Three days of history: many purchases are still PENDING, and some of them were refunded.
    t = await startTestSandbox({
      merchants: 1,
      seed: 'moving-refunds',
      wallClock: () => NOW,
      world: { cards: 60, transactions: 3_000, days: 3, anomaliesPerCode: 0 },
      activityPerSecond: 1,
    });
    t.sandbox.movingWorld?.stop();
  });
  afterAll(async () => t.close());

  it('never declines a PENDING purchase that has a refund, so the world stays free of findings', async () => {
    t.sandbox.movingWorld!.step(5_000);
    const [access] = t.sandbox.merchants;
    const view = await readMerchantView(t.merchants[0]!, access!.merchantId, access!.journalFile!);
    const findings = checkMerchant(view, { cutoff: NOW, ...DEFAULT_WINDOWS });
    expect(findings.map((f) => `${fingerprintOf(f)} (${f.detail})`)).toEqual([]);
  });
});

describe('a moving world over a generated history with planted anomalies', () => {
  const NOW = Date.parse('2026-11-21T02:00:00.000Z');
  let t: TestSandbox;
  beforeAll(async () => {
    // Few cards besides the planted ones, so the world's activity reaches them often.
    t = await startTestSandbox({
      merchants: 1,
      seed: 'moving-planted',
      wallClock: () => NOW,
      world: { cards: 5, transactions: 50, days: 20, anomaliesPerCode: 3 },
      activityPerSecond: 1,
    });
    t.sandbox.movingWorld?.stop();
  });
  afterAll(async () => t.close());

  it('leaves the cards built for anomalies alone, so the manifest still lists exactly the findings', async () => {
    const manifest = JSON.parse(await readFile(t.sandbox.groundTruthFile!, 'utf8')) as {
      findings: Parameters<typeof fingerprintOf>[0][];
    };
    expect(t.sandbox.movingWorld!.step(2_000)).toBeGreaterThan(100);
    const [access] = t.sandbox.merchants;
    const view = await readMerchantView(t.merchants[0]!, access!.merchantId, access!.journalFile!);
    const found = checkMerchant(view, { cutoff: NOW, ...DEFAULT_WINDOWS });
    const planted = new Set(manifest.findings.map(fingerprintOf));
    const unexpected = found.filter((f) => !planted.has(fingerprintOf(f)));
    expect(unexpected.map((f) => `${fingerprintOf(f)} (${f.detail})`)).toEqual([]);
    expect(found.map(fingerprintOf).sort()).toEqual([...planted].sort());
  });
});
