import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Card, Offering } from '../../src/contract/index.js';
import type { ApiClient } from '../support/api-client.js';
import { orderNo, startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import {
  activeCard,
  advanceClock,
  allCards,
  expectError,
  holderFreeOffering,
  issueCard,
  type Page,
  processOrder,
} from '../support/wire-fixtures.js';

const MINUTE = 60_000;

describe('GET /cards while cards are issued and change status between page reads', () => {
  let t: TestSandbox;
  let api: ApiClient;
  let other: ApiClient;
  let offering: Offering;

  const page = async (query: Record<string, string | number>) => {
    const response = await api.get<Page<Card>>('/cards', { query });
    expect(response.status, response.text).toBe(200);
    return response.body;
  };
  const ids = (cards: readonly Card[]) => cards.map((c) => c.cardId);

  beforeAll(async () => {
    t = await startTestSandbox({ seed: 'cards-paging-under-change' });
    api = t.merchants[0] as ApiClient;
    other = t.merchants[1] as ApiClient;
    offering = await holderFreeOffering(api);
    for (let i = 0; i < 6; i++) {
      await advanceClock(t.control, MINUTE);
      await activeCard(api, t.control, offering);
    }
  });
  afterAll(async () => t.close());

  it('puts a card issued between two reads first: the total grows and later pages shift by one', async () => {
    const before = await allCards(api);
    const first = await page({ limit: 2, page: 1 });
    await advanceClock(t.control, MINUTE);
    const issued = await api.post('/cards', {
      offeringId: offering.id,
      amount: offering.minLoadAmount,
      merchantOrderNo: orderNo('between'),
    });
    expect(issued.status, issued.text).toBe(201);
    const second = await page({ limit: 2, page: 2 });

    expect(ids(first.data)).toEqual(ids(before.slice(0, 2)));
    expect(second.pagination.total).toBe(first.pagination.total + 1);
    expect(second.pagination.totalPages).toBe(Math.ceil((before.length + 1) / 2));
    // The second page starts with the row the first page ended on.
    expect(ids(second.data)).toEqual(ids(before.slice(1, 3)));
    const now = await page({ limit: 1 });
    expect(now.data[0]?.status).toBe('PENDING');
    expect(ids(before)).not.toContain(now.data[0]?.cardId);
    const pending = await page({ status: 'PENDING' });
    expect(pending.pagination.total).toBe(1);
    expect(await processOrder(t.control, issued.body.data.orderNo, 'success')).toBe('success');
    expect((await page({ status: 'PENDING' })).pagination.total).toBe(0);
  });

  it('drops a card that leaves the filtered status from the total, and pulls later rows up', async () => {
    const everything = (await page({ limit: 100 })).data;
    const active = (await page({ status: 'ACTIVE', limit: 100 })).data;
    expect(active.length).toBeGreaterThanOrEqual(5);
    const first = await page({ status: 'ACTIVE', limit: 2, page: 1 });
    expect(ids(first.data)).toEqual(ids(active.slice(0, 2)));

    const frozen = active[0] as Card;
    const freeze = await api.post('/cards/freeze', {
      cardId: frozen.cardId,
      merchantOrderNo: orderNo('freeze'),
    });
    expect(freeze.status, freeze.text).toBe(201);
    const second = await page({ status: 'ACTIVE', limit: 2, page: 2 });
    expect(second.pagination.total).toBe(active.length - 1);
    expect(ids(second.data)).toEqual(ids(active.slice(3, 5)));

    const freezing = await page({ status: 'FREEZING' });
    expect(ids(freezing.data)).toEqual([frozen.cardId]);
    await processOrder(t.control, freeze.body.data.orderNo);
    expect((await page({ status: 'FREEZING' })).pagination.total).toBe(0);
    expect(ids((await page({ status: 'FROZEN' })).data)).toEqual([frozen.cardId]);
    // The unfiltered list keeps every card in its place, the frozen one included.
    expect(ids((await page({ limit: 100 })).data)).toEqual(ids(everything));
  });

  it("leaves one merchant's pages alone when another merchant issues a card", async () => {
    const before = await page({ limit: 100 });
    await issueCard(other, await holderFreeOffering(other));
    const after = await page({ limit: 100 });
    expect(after).toEqual(before);
  });

  it('leaves the list as it was after a refused issuance', async () => {
    const before = await page({ limit: 100 });
    const refused = await api.post('/cards', {
      offeringId: offering.id,
      amount: '999999999999',
      merchantOrderNo: orderNo('refused'),
    });
    expectError(refused, 422, 'LOAD_OUT_OF_BOUNDS');
    expect(await page({ limit: 100 })).toEqual(before);
  });
});
