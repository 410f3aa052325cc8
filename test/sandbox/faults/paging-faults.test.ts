import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { minorOf } from '../../support/decimal-text.js';
import { startTestSandbox, type TestSandbox } from '../../support/test-sandbox.js';
import { issueActiveCard } from './active-card.js';
import { clearFaults, rawCall, setFaults } from './raw-call.js';

interface Row {
  readonly transactionId: string;
  readonly cardId: string;
  readonly status: string;
  readonly amount: string;
  readonly merchantName: string;
  readonly createdAt: string;
}

interface Page<T> {
  readonly data: T[];
  readonly pagination: { total: number; page: number; limit: number; totalPages: number };
}

async function page<T = Row>(
  t: TestSandbox,
  path: string,
  query: Record<string, string | number | undefined>,
): Promise<Page<T>> {
  const answer = await rawCall(t, 'GET', path, { query });
  expect(answer.status).toBe(200);
  return JSON.parse(answer.text) as Page<T>;
}

describe('fault lab: page size and drift while paging', () => {
  let t: TestSandbox;
  let cardId: string;
  const base = Date.parse('2026-03-01T00:00:00.000Z');

  beforeAll(async () => {
    t = await startTestSandbox({ seed: 'paging-faults' });
    ({ cardId } = await issueActiveCard(t));
    // Twelve PENDING purchases an hour apart, so pages have a known order.
    for (let i = 0; i < 12; i++) {
      const posted = await t.control.post(`/_control/cards/${cardId}/transactions`, {
        type: 'PURCHASE',
        amount: '1.00',
        createdAt: new Date(base + i * 3_600_000).toISOString(),
      });
      expect(posted.status).toBe(201);
    }
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    await clearFaults(t);
  });

  it('serves smaller pages under a page-size fault, and pagination.limit says so', async () => {
    await setFaults(t, [{ kind: 'page-size', max: 5, match: { operation: 'listTransactions' } }]);
    const small = await page(t, '/transactions', { limit: 50 });
    expect(small.pagination.limit).toBe(5);
    expect(small.data).toHaveLength(5);
    expect(small.pagination.totalPages).toBe(Math.ceil(small.pagination.total / 5));
    const byDefault = await page(t, '/transactions', {});
    expect(byDefault.pagination.limit).toBe(5);
    const cards = await page(t, '/cards', { limit: 50 });
    expect(cards.pagination.limit).toBe(50);
    await clearFaults(t);
    const restored = await page(t, '/transactions', { limit: 50 });
    expect(restored.pagination.limit).toBe(50);
  });

  it('inserts rows between two page requests: the total grows and the rows shift', async () => {
    const query = { startTime: '2026-03-01T00:00:00.000Z', endTime: '2026-03-01T23:00:00.000Z' };
    const first = await page(t, '/transactions', { ...query, limit: 4, page: 1 });
    const cardBefore = JSON.parse(
      (await rawCall(t, 'GET', '/cards/info', { query: { cardId } })).text,
    ).data;
    await setFaults(t, [
      { kind: 'drift', insert: 2, match: { operation: 'listTransactions' }, times: 1 },
    ]);
    const second = await page(t, '/transactions', { ...query, limit: 4, page: 2 });
    expect(second.pagination.total).toBe(first.pagination.total + 2);
    // Two new rows at the newest end of the range push the old rows two places down.
    expect(second.data[0]?.transactionId).toBe(first.data[2]?.transactionId);
    expect(second.data[1]?.transactionId).toBe(first.data[3]?.transactionId);

    const planted = (await page(t, '/transactions', { ...query, limit: 100 })).data.filter(
      (row) => row.merchantName === 'Drift Market',
    );
    expect(planted).toHaveLength(2);
    for (const row of planted) {
      expect(row.createdAt).toBe(query.endTime);
      expect(row.cardId).toBe(cardId);
      expect(row.status).toBe('PENDING');
    }
    // Through the real ledger: the pending purchases hold their amounts on the card.
    const cardAfter = JSON.parse(
      (await rawCall(t, 'GET', '/cards/info', { query: { cardId } })).text,
    ).data;
    const held = planted.reduce((sum, row) => sum + minorOf(row.amount, 2), 0n);
    expect(minorOf(cardBefore.balance, 2) - minorOf(cardAfter.balance, 2)).toBe(held);
  });

  it('moves PENDING rows on between two page requests: statuses change and a status filter shrinks', async () => {
    const pendingBefore = await page(t, '/transactions', { status: 'PENDING', limit: 100 });
    expect(pendingBefore.pagination.total).toBeGreaterThanOrEqual(3);
    await setFaults(t, [
      { kind: 'drift', progress: 3, match: { operation: 'listTransactions' }, times: 1 },
    ]);
    const pendingAfter = await page(t, '/transactions', { status: 'PENDING', limit: 100 });
    expect(pendingAfter.pagination.total).toBe(pendingBefore.pagination.total - 3);
    const gone = pendingBefore.data
      .map((row) => row.transactionId)
      .filter((id) => !pendingAfter.data.some((row) => row.transactionId === id));
    expect(gone).toHaveLength(3);
    const all = (await page(t, '/transactions', { limit: 100 })).data;
    for (const id of gone)
      expect(all.find((row) => row.transactionId === id)?.status).toBe('COMPLETED');
  });

  it('drifts GET /cards too: a card issued elsewhere shifts the pages, pending orders move on', async () => {
    const first = await page<{ cardId: string; status: string }>(t, '/cards', { limit: 1 });
    await setFaults(t, [{ kind: 'drift', insert: 1, match: { operation: 'listCards' }, times: 1 }]);
    const second = await page<{ cardId: string; status: string }>(t, '/cards', {
      limit: 1,
      page: 2,
    });
    expect(second.pagination.total).toBe(first.pagination.total + 1);
    expect(second.data[0]?.cardId).toBe(first.data[0]?.cardId);
    const pending = await page<{ cardId: string }>(t, '/cards', { status: 'PENDING' });
    expect(pending.pagination.total).toBe(1);

    await setFaults(t, [
      { kind: 'drift', progress: 1, match: { operation: 'listCards' }, times: 1 },
    ]);
    const after = await page<{ cardId: string }>(t, '/cards', { status: 'PENDING' });
    expect(after.pagination.total).toBe(0);
    const card = JSON.parse(
      (await rawCall(t, 'GET', '/cards/info', { query: { cardId: pending.data[0]?.cardId } })).text,
    ).data;
    expect(card.status).toBe('ACTIVE');
  });

  it('drifts only the page reads under minLimit, not a limit=1 read of the total', async () => {
    await setFaults(t, [
      { kind: 'drift', insert: 1, match: { operation: 'listTransactions', minLimit: 2 } },
    ]);
    const counted = await page(t, '/transactions', { limit: 1 });
    expect((await page(t, '/transactions', { limit: 1 })).pagination.total).toBe(
      counted.pagination.total,
    );
    // A page read drifts, the default page size (20) included.
    const read = await page(t, '/transactions', { limit: 2 });
    expect(read.pagination.total).toBe(counted.pagination.total + 1);
    expect((await page(t, '/transactions', {})).pagination.total).toBe(
      counted.pagination.total + 2,
    );
    // A limit the service refuses matches no such rule: the 400, with nothing drifted.
    const refused = await rawCall(t, 'GET', '/transactions', { query: { limit: 'lots' } });
    expect(refused.status).toBe(400);
    const listed = await t.control.get('/_control/faults');
    expect(listed.body.rules[0]).toMatchObject({ calls: 2, fired: 2 });
  });

  it('matches under minLimit any limit the service serves, however many digits it is written in', async () => {
    await setFaults(t, [
      { kind: 'drift', insert: 1, match: { operation: 'listTransactions', minLimit: 2 } },
    ]);
    const counted = await page(t, '/transactions', { limit: 1 });
    // Decimal digits, so the service serves them: 50 rows asked for, and a billion (clamped to
    // its largest page). Each asks for at least 2 rows, so each drifts.
    const padded = await page(t, '/transactions', { limit: '0000000050' });
    expect(padded.pagination.limit).toBe(50);
    expect(padded.pagination.total).toBe(counted.pagination.total + 1);
    const huge = await page(t, '/transactions', { limit: '1000000000' });
    expect(huge.pagination.limit).toBe(100);
    expect(huge.pagination.total).toBe(counted.pagination.total + 2);
    const listed = await t.control.get('/_control/faults');
    expect(listed.body.rules[0]).toMatchObject({ calls: 2, fired: 2 });
  });

  it('leaves other merchants and other routes alone while drifting', async () => {
    await issueActiveCard(t, 1);
    const otherBefore = JSON.parse(
      (await rawCall(t, 'GET', '/transactions', { merchant: 1 })).text,
    );
    expect(otherBefore.pagination.total).toBeGreaterThan(0);
    const mineBefore = await page(t, '/transactions', {});
    const cardsBefore = await page(t, '/cards', {});
    await setFaults(t, [
      {
        kind: 'drift',
        insert: 1,
        match: { operation: 'listTransactions', merchantId: t.sandbox.merchants[0]?.merchantId },
      },
    ]);
    const otherAfter = JSON.parse((await rawCall(t, 'GET', '/transactions', { merchant: 1 })).text);
    expect(otherAfter.pagination.total).toBe(otherBefore.pagination.total);
    expect((await page(t, '/cards', {})).pagination.total).toBe(cardsBefore.pagination.total);
    expect((await page(t, '/transactions', {})).pagination.total).toBe(
      mineBefore.pagination.total + 1,
    );
    const listed = await t.control.get('/_control/faults');
    expect(listed.body.rules[0]).toMatchObject({ calls: 1, fired: 1 });
  });
});
