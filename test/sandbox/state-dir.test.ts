import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Card, MerchantBalance, Transaction } from '../../src/contract/index.js';
import type { ApiClient } from '../support/api-client.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import {
  activeCard,
  advanceClock,
  allCards,
  allTransactions,
  holderFreeOffering,
  type Issued,
  issueCard,
  postTransaction,
  processOrder,
} from '../support/wire-fixtures.js';

const DAY = 86_400_000;

/** What the first run leaves behind, as its own answers showed it. */
interface FirstRun {
  merchants: { merchantId: string; currency: string }[];
  seed: string;
  caFile: string;
  caPem: string;
  caFileText: string;
  offsetMs: number;
  m0Keys: string[];
  m1RevokedKey: string;
  m1Key: string;
  pending: Issued;
  cards: Card[];
  transactions: Transaction[];
  balances: MerchantBalance[];
}

describe('a sandbox restarted on the same stateDir', () => {
  let dir: string;
  let second: TestSandbox | undefined;
  let before: FirstRun;
  const api = (index: number) => second?.merchants[index] as ApiClient;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cardsync-state-test-'));
    const first = await startTestSandbox({ stateDir: dir, currencies: ['USD', 'JPY'] });
    try {
      const [m0, m1] = first.merchants as [ApiClient, ApiClient];
      const [a0, a1] = first.sandbox.merchants as [
        (typeof first.sandbox.merchants)[0],
        (typeof first.sandbox.merchants)[0],
      ];
      const offering = await holderFreeOffering(m0);
      const active = await activeCard(m0, first.control, offering, offering.maxLoadAmount);
      const pending = await issueCard(m0, offering);
      await postTransaction(first.control, active.cardId, {
        type: 'PURCHASE',
        status: 'COMPLETED',
        amount: '3.25',
      });
      const added = await first.control.post(`/_control/merchants/${a0.merchantId}/keys`, {});
      expect(added.status, added.text).toBe(201);
      const rotated = await first.control.post(
        `/_control/merchants/${a1.merchantId}/keys/rotate`,
        {},
      );
      expect(rotated.status, rotated.text).toBe(201);
      await advanceClock(first.control, 3 * DAY);

      const clock = await first.control.get('/_control/clock');
      before = {
        merchants: first.sandbox.merchants.map((m) => ({
          merchantId: m.merchantId,
          currency: m.currency,
        })),
        seed: first.sandbox.seed,
        caFile: first.sandbox.caFile,
        caPem: first.sandbox.caPem,
        caFileText: await readFile(first.sandbox.caFile, 'utf8'),
        offsetMs: clock.body.offsetMs,
        m0Keys: [a0.apiKey, added.body.apiKey],
        m1RevokedKey: a1.apiKey,
        m1Key: rotated.body.apiKey,
        pending,
        cards: await allCards(m0),
        transactions: await allTransactions(m0),
        balances: [
          (await m0.get('/merchants/balance')).body.data,
          (await m1.withKey(rotated.body.apiKey).get('/merchants/balance')).body.data,
        ],
      };
    } finally {
      await first.close();
    }
    second = await startTestSandbox({ stateDir: dir });
  });

  afterAll(async () => {
    await second?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps its merchants with their ids, currencies and seed', () => {
    expect(
      second?.sandbox.merchants.map((m) => ({ merchantId: m.merchantId, currency: m.currency })),
    ).toEqual(before.merchants);
    expect(second?.sandbox.seed).toBe(before.seed);
    expect(second?.sandbox.stateDir).toBe(dir);
  });

  it('keeps the keys: both live keys work, a rotated-out key stays revoked', async () => {
    for (const key of before.m0Keys) {
      const response = await api(0).withKey(key).get('/merchants/balance');
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual(before.balances[0]);
    }
    const revoked = await api(1).withKey(before.m1RevokedKey).get('/merchants/balance');
    expect(revoked.status).toBe(401);
    const live = await api(1).withKey(before.m1Key).get('/merchants/balance');
    expect(live.status).toBe(200);
    expect(before.m0Keys).toContain(second?.sandbox.merchants[0]?.apiKey);
    expect(second?.sandbox.merchants[1]?.apiKey).toBe(before.m1Key);
  });

  it('keeps cards, transactions and both balances exactly', async () => {
    expect(await allCards(api(0))).toEqual(before.cards);
    expect(await allTransactions(api(0))).toEqual(before.transactions);
    const balances = await Promise.all([0, 1].map((i) => api(i).get('/merchants/balance')));
    expect(balances.map((b) => b.body.data)).toEqual(before.balances);
  });

  it("keeps the CA: same file and PEM, and a client trusting the first run's CA connects", async () => {
    expect(second?.sandbox.caFile).toBe(before.caFile);
    expect(second?.sandbox.caPem).toBe(before.caPem);
    expect(await readFile(before.caFile, 'utf8')).toBe(before.caFileText);
    const agent = new Agent({ connect: { ca: before.caPem } });
    try {
      const response = await request(new URL('/merchants/balance', second?.sandbox.baseUrl), {
        dispatcher: agent,
        headers: { 'x-api-key': before.m0Keys[0] ?? '' },
      });
      expect(response.statusCode).toBe(200);
      await response.body.text();
    } finally {
      await agent.close();
    }
  });

  it('keeps the clock offset, and new records are dated on the moved clock', async () => {
    const clock = await second?.control.get('/_control/clock');
    expect(clock?.body.offsetMs).toBe(before.offsetMs);
    expect(before.offsetMs).toBeGreaterThanOrEqual(3 * DAY);
    const wallBefore = Date.now();
    const offering = await holderFreeOffering(api(0));
    const issued = await issueCard(api(0), offering);
    const card = await api(0).get<{ data: Card }>('/cards/info', {
      query: { cardId: issued.cardId },
    });
    expect(Date.parse(card.body.data.createdAt)).toBeGreaterThanOrEqual(
      wallBefore + before.offsetMs,
    );
  });

  it('carries on: a pending order from the first run completes, and new ids do not collide', async () => {
    expect(await processOrder(second?.control as ApiClient, before.pending.orderNo)).toBe(
      'success',
    );
    const card = await api(0).get<{ data: Card }>('/cards/info', {
      query: { cardId: before.pending.cardId },
    });
    expect(card.body.data.status).toBe('ACTIVE');
    const cards = await allCards(api(0));
    const ids = cards.map((c) => c.cardId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const old of before.cards) expect(ids).toContain(old.cardId);
    const txnIds = (await allTransactions(api(0))).map((x) => x.transactionId);
    expect(new Set(txnIds).size).toBe(txnIds.length);
  });
});
