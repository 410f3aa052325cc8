import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CardIssuingClient, type CardIssuingClientOptions } from '../../src/api/index.js';
import type { Offering } from '../../src/contract/index.js';
import type { CardOrder } from '../../src/journal/card-order.js';
import { type OrderApi, OrderDesk } from '../../src/journal/order-desk.js';
import { OrderDeskError } from '../../src/journal/order-desk-error.js';
import type { OrdersTable } from '../../src/mirror/mirror-schema.js';
import { type Mirror, openMirror } from '../../src/mirror/open-mirror.js';
import { orderNo, startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

let t: TestSandbox;
let dir: string;
let mirror: Mirror;
let merchantId: string;
let offering: Offering;
let activeCard: string;
const clients: CardIssuingClient[] = [];

function client(options: Partial<CardIssuingClientOptions> = {}): CardIssuingClient {
  const api = new CardIssuingClient({
    baseUrl: t.sandbox.baseUrl,
    apiKey: t.sandbox.merchants[0]!.apiKey,
    ca: t.sandbox.caPem,
    retry: { baseDelayMs: 5, maxDelayMs: 20, retryAfterCapMs: 50 },
    ...options,
  });
  clients.push(api);
  return api;
}

function desk(api: OrderApi = client()): OrderDesk {
  return new OrderDesk({ db: mirror.db, api, merchantId, currency: 'USD' });
}

function row(merchantOrderNo: string): OrdersTable | undefined {
  return mirror.db
    .prepare('SELECT * FROM orders WHERE merchant_order_no = ?')
    .get(merchantOrderNo) as OrdersTable | undefined;
}

/** How many orders the upstream holds under a merchantOrderNo. */
function upstreamOrders(merchantOrderNo: string): number {
  const found = t.sandbox.context.store.db
    .prepare('SELECT count(*) AS n FROM orders WHERE merchant_order_no = ?')
    .get(merchantOrderNo) as { n: number };
  return found.n;
}

async function addFault(rule: Record<string, unknown>): Promise<void> {
  const answer = await t.control.post('/_control/faults', rule);
  expect(answer.status, answer.text).toBe(201);
}

/** Counts the calls that reach the upstream, passing each on to the real client. */
function counted(api: OrderApi): { api: OrderApi; calls: string[] } {
  const calls: string[] = [];
  const wrap =
    <K extends keyof OrderApi>(name: K) =>
    (...args: Parameters<OrderApi[K]>) => {
      calls.push(name);
      return (api[name] as (...a: Parameters<OrderApi[K]>) => ReturnType<OrderApi[K]>)(...args);
    };
  return {
    calls,
    api: {
      issueCard: wrap('issueCard'),
      deposit: wrap('deposit'),
      withdraw: wrap('withdraw'),
      freezeCard: wrap('freezeCard'),
      unfreezeCard: wrap('unfreezeCard'),
      cancelCard: wrap('cancelCard'),
    },
  };
}

beforeAll(async () => {
  t = await startTestSandbox({ merchants: 1, seed: 'order-desk' });
  dir = await mkdtemp(join(tmpdir(), 'cardsync-desk-'));
  merchantId = t.sandbox.merchants[0]!.merchantId;
  const offerings = await client().listOfferings();
  offering = offerings.records.find((o) => !o.requiresHolder && o.name.startsWith('Everyday'))!;
  // One ACTIVE card for the card orders.
  mirror = openMirror(join(dir, 'setup.sqlite'));
  const issued = await desk().submit({ kind: 'ISSUE', offeringId: offering.id, amount: '100.00' });
  await mirror.close();
  await t.control.post('/_control/orders/process', { orderNo: issued.orderNo });
  const cards = await client().listCards({ status: 'ACTIVE' });
  activeCard = cards.records[0]!.cardId;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.close();
  await rm(dir, { recursive: true, force: true });
});
let mirrorNo = 0;
beforeEach(() => {
  mirrorNo += 1;
  mirror = openMirror(join(dir, `mirror-${mirrorNo}.sqlite`));
});
afterEach(async () => {
  await mirror.close();
  const answer = await t.control.call('DELETE', '/_control/faults');
  expect(answer.status).toBeLessThan(300);
});

describe('OrderDesk.submit', () => {
  it('journals the order SUBMITTED with the exact body before the request leaves, then ACCEPTED', async () => {
    const real = client();
    const seen: {
      state: string | undefined;
      requestJson: string | null | undefined;
      body: string;
    }[] = [];
    const api: OrderApi = {
      ...counted(real).api,
      deposit: (body, options) => {
        const journaled = row(body.merchantOrderNo);
        seen.push({
          state: journaled?.state,
          requestJson: journaled?.request_json,
          body: JSON.stringify(body),
        });
        return real.deposit(body, options);
      },
    };
    const mo = orderNo('desk');
    const outcome = await desk(api).submit(
      { kind: 'DEPOSIT', cardId: activeCard, amount: '5.5' },
      { merchantOrderNo: mo },
    );
    expect(seen).toEqual([{ state: 'SUBMITTED', requestJson: seen[0]?.body, body: seen[0]?.body }]);
    expect(JSON.parse(seen[0]!.body)).toEqual({
      cardId: activeCard,
      amount: '5.5',
      merchantOrderNo: mo,
    });
    expect(outcome).toMatchObject({
      merchantOrderNo: mo,
      kind: 'DEPOSIT',
      state: 'ACCEPTED',
      sent: true,
      replayed: false,
      fromJournal: false,
      errorCode: null,
    });
    expect(outcome.orderNo).toMatch(/^ord_/);
    expect(row(mo)).toMatchObject({
      merchant_id: merchantId,
      kind: 'DEPOSIT',
      card_id: activeCard,
      amount: '5.5',
      amount_minor: 550,
      currency: 'USD',
      state: 'ACCEPTED',
      order_no: outcome.orderNo,
      source: 'cli',
      error_code: null,
    });
  });

  it('journals an order answered 204 No Content ACCEPTED without an order_no, after one request', async () => {
    // The sandbox always answers 201 with a body; a real upstream may answer any 2xx.
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get('https://upstream.test')
      .intercept({ path: '/cards/freeze', method: 'POST' })
      .reply(204, '')
      .times(6);
    const api = new CardIssuingClient({
      baseUrl: 'https://upstream.test',
      apiKey: 'k',
      dispatcher: agent,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
    });
    const { api: countedApi, calls } = counted(api);
    const mo = orderNo('no-content');
    try {
      const outcome = await desk(countedApi).submit(
        { kind: 'FREEZE', cardId: activeCard },
        { merchantOrderNo: mo },
      );
      expect(outcome).toMatchObject({ state: 'ACCEPTED', orderNo: null, sent: true });
      expect(calls).toEqual(['freezeCard']);
      expect(api.stats().requests).toBe(1);
      expect(row(mo)).toMatchObject({ state: 'ACCEPTED', order_no: null, error_code: null });
    } finally {
      await agent.close();
    }
  });

  it('makes a merchantOrderNo when none is given: cs-, the UTC second, 10 hex digits', async () => {
    const outcome = await desk().submit({ kind: 'FREEZE', cardId: 'card_unknown' });
    expect(outcome.merchantOrderNo).toMatch(/^cs-\d{8}T\d{6}Z-[0-9a-f]{10}$/);
    expect(row(outcome.merchantOrderNo)?.request_json).toBe(
      JSON.stringify({ cardId: 'card_unknown', merchantOrderNo: outcome.merchantOrderNo }),
    );
  });

  it('settles a lost answer by replaying the journaled body: one upstream order, replayed=true', async () => {
    await addFault({ kind: 'commit-then-drop', match: { operation: 'issueCard' }, times: 1 });
    const mo = orderNo('lost');
    const order: CardOrder = { kind: 'ISSUE', offeringId: offering.id, amount: '20.00' };
    const before = await client().getMerchantBalance();
    const first = await desk(client({ retry: { maxAttempts: 1 } })).submit(order, {
      merchantOrderNo: mo,
    });
    expect(first).toMatchObject({ state: 'SUBMITTED', orderNo: null, sent: true });
    expect(first.error?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(row(mo)).toMatchObject({ state: 'SUBMITTED', order_no: null });
    expect(upstreamOrders(mo)).toBe(1);

    const settled = await desk().settle(mo);
    expect(settled).toMatchObject({ state: 'ACCEPTED', replayed: true, sent: true });
    expect(row(mo)).toMatchObject({ state: 'ACCEPTED', order_no: settled.orderNo });
    expect(upstreamOrders(mo)).toBe(1);
    const after = await client().getMerchantBalance();
    expect(Number(before.balance) - Number(after.balance)).toBe(20);
  });

  it('settles a request killed in flight when the same order is sent again: one upstream order', async () => {
    await addFault({ kind: 'latency', ms: 400, match: { operation: 'withdraw' }, times: 1 });
    const mo = orderNo('killed');
    const order: CardOrder = { kind: 'WITHDRAW', cardId: activeCard, amount: '1.00' };
    const kill = new AbortController();
    const pending = desk().submit(order, { merchantOrderNo: mo, signal: kill.signal });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(row(mo)?.state).toBe('SUBMITTED');
    kill.abort();
    const first = await pending;
    expect(first).toMatchObject({ state: 'SUBMITTED' });
    expect(first.error?.code).toBe('UPSTREAM_ABORTED');
    // Whether the upstream took the cut request or not, sending it again leaves one order.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const again = await desk().submit(order, { merchantOrderNo: mo });
    expect(again).toMatchObject({ state: 'ACCEPTED', sent: true });
    expect(upstreamOrders(mo)).toBe(1);
    expect(row(mo)).toMatchObject({ state: 'ACCEPTED', order_no: again.orderNo });
  });

  it('journals a refusal REJECTED with its code, and answers it again from the journal', async () => {
    const { api, calls } = counted(client());
    const mo = orderNo('refused');
    const order: CardOrder = { kind: 'WITHDRAW', cardId: activeCard, amount: '4000.00' };
    const first = await desk(api).submit(order, { merchantOrderNo: mo });
    expect(first).toMatchObject({
      state: 'REJECTED',
      errorCode: 'INSUFFICIENT_CARD_BALANCE',
      sent: true,
    });
    expect(first.error?.code).toBe('UPSTREAM_REJECTED');
    expect(row(mo)).toMatchObject({ state: 'REJECTED', error_code: 'INSUFFICIENT_CARD_BALANCE' });
    const again = await desk(api).submit(order, { merchantOrderNo: mo });
    expect(again).toMatchObject({
      state: 'REJECTED',
      errorCode: 'INSUFFICIENT_CARD_BALANCE',
      sent: false,
      fromJournal: true,
    });
    expect(calls).toEqual(['withdraw']);
  });

  it('answers an ACCEPTED merchantOrderNo from the journal without sending', async () => {
    const { api, calls } = counted(client());
    const mo = orderNo('twice');
    const order: CardOrder = { kind: 'DEPOSIT', cardId: activeCard, amount: '1' };
    const first = await desk(api).submit(order, { merchantOrderNo: mo });
    const second = await desk(api).submit(
      { kind: 'DEPOSIT', cardId: activeCard, amount: '1.00' },
      { merchantOrderNo: mo },
    );
    expect(second).toMatchObject({
      state: 'ACCEPTED',
      orderNo: first.orderNo,
      sent: false,
      fromJournal: true,
    });
    expect(calls).toEqual(['deposit']);
  });

  it('refuses a journaled merchantOrderNo with other parameters, sending and changing nothing', async () => {
    const { api, calls } = counted(client());
    const mo = orderNo('conflict');
    await desk(api).submit(
      { kind: 'DEPOSIT', cardId: activeCard, amount: '1.00' },
      { merchantOrderNo: mo },
    );
    const before = row(mo);
    await expect(
      desk(api).submit(
        { kind: 'DEPOSIT', cardId: activeCard, amount: '2.00' },
        { merchantOrderNo: mo },
      ),
    ).rejects.toThrow(
      expect.objectContaining({
        code: 'ORDER_CONFLICT',
        message: expect.stringMatching(
          /journaled ACCEPTED for DEPOSIT 1.00 to card .*, not DEPOSIT 2.00/,
        ),
      }),
    );
    expect(row(mo)).toEqual(before);
    expect(calls).toEqual(['deposit']);
  });

  it('refuses to submit an order imported from the books', async () => {
    const at = new Date().toISOString();
    mirror.db
      .prepare(
        `INSERT INTO orders (merchant_order_no, merchant_id, kind, card_id, amount, amount_minor,
           currency, submitted_at, state, source, import_file, import_line, created_at, updated_at)
         VALUES ('imp-1', ?, 'DEPOSIT', ?, '1.00', 100, 'USD', ?, 'IMPORTED', 'import', 'books.csv', 7, ?, ?)`,
      )
      .run(merchantId, activeCard, at, at, at);
    const { api, calls } = counted(client());
    const error = await desk(api)
      .submit({ kind: 'DEPOSIT', cardId: activeCard, amount: '1.00' }, { merchantOrderNo: 'imp-1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrderDeskError);
    expect((error as OrderDeskError).message).toMatch(
      /imported from the merchant's books \(books.csv line 7\)/,
    );
    expect(calls).toEqual([]);
  });

  it('refuses an amount too precise for the currency before writing anything', async () => {
    const mo = orderNo('precise');
    await expect(
      desk().submit(
        { kind: 'DEPOSIT', cardId: activeCard, amount: '1.005' },
        { merchantOrderNo: mo },
      ),
    ).rejects.toThrow(expect.objectContaining({ code: 'ORDER_INVALID' }));
    expect(row(mo)).toBeUndefined();
  });

  it('refuses an amount in a currency whose exponent is unknown as such, not as too precise', async () => {
    const mo = orderNo('unknown-currency');
    const { api, calls } = counted(client());
    const unknown = new OrderDesk({ db: mirror.db, api, merchantId, currency: 'XTS' });
    await expect(
      unknown.submit(
        { kind: 'DEPOSIT', cardId: activeCard, amount: '25.00' },
        { merchantOrderNo: mo },
      ),
    ).rejects.toThrow(
      expect.objectContaining({
        code: 'ORDER_INVALID',
        message: expect.stringMatching(/XTS.*exponent.*unknown|unknown.*XTS/),
      }),
    );
    expect(row(mo)).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('journals a 401 REJECTED UNAUTHORIZED and sends it afresh once the key is right', async () => {
    const mo = orderNo('key');
    const order: CardOrder = { kind: 'DEPOSIT', cardId: activeCard, amount: '2.00' };
    const refused = await desk(client({ apiKey: 'sk_test_wrong' })).submit(order, {
      merchantOrderNo: mo,
    });
    expect(refused).toMatchObject({ state: 'REJECTED', errorCode: 'UNAUTHORIZED' });
    expect(refused.error?.code).toBe('UPSTREAM_UNAUTHORIZED');
    expect(upstreamOrders(mo)).toBe(0);
    const accepted = await desk().submit(order, { merchantOrderNo: mo });
    expect(accepted).toMatchObject({ state: 'ACCEPTED', replayed: false, sent: true });
    expect(row(mo)).toMatchObject({
      state: 'ACCEPTED',
      error_code: null,
      order_no: accepted.orderNo,
    });
  });

  it('leaves the order SUBMITTED when the upstream stays unavailable, and a later retry settles it', async () => {
    await addFault({
      kind: 'server-error',
      status: 503,
      match: { operation: 'cancelCard' },
      times: 2,
    });
    const mo = orderNo('busy');
    const order: CardOrder = { kind: 'CANCEL', cardId: 'card_nope' };
    const first = await desk(
      client({ retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 } }),
    ).submit(order, { merchantOrderNo: mo });
    expect(first).toMatchObject({ state: 'SUBMITTED' });
    expect(first.error?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(
      desk()
        .pending()
        .map((r) => r.merchant_order_no),
    ).toEqual([mo]);
    const settled = await desk().settle(mo);
    expect(settled).toMatchObject({ state: 'REJECTED', errorCode: 'CARD_NOT_FOUND' });
    expect(desk().pending()).toEqual([]);
  });

  it('keeps a resent order SUBMITTED when the retry is refused for the key: the first attempt may have been taken', async () => {
    await addFault({ kind: 'commit-then-drop', match: { operation: 'deposit' }, times: 1 });
    const mo = orderNo('resend-401');
    const order: CardOrder = { kind: 'DEPOSIT', cardId: activeCard, amount: '3.00' };
    const lost = await desk(client({ retry: { maxAttempts: 1 } })).submit(order, {
      merchantOrderNo: mo,
    });
    expect(lost.state).toBe('SUBMITTED');
    const wrongKey = await desk(client({ apiKey: 'sk_test_wrong' })).settle(mo);
    expect(wrongKey).toMatchObject({ state: 'SUBMITTED' });
    expect(wrongKey.error?.code).toBe('UPSTREAM_UNAUTHORIZED');
    expect(row(mo)?.state).toBe('SUBMITTED');
    expect(await desk().settle(mo)).toMatchObject({ state: 'ACCEPTED', replayed: true });
  });

  it('keeps a first sending SUBMITTED when its client retry is refused for the key after an attempt that may have been taken', async () => {
    // The first attempt is taken and its answer lost; the key is revoked (rotated on the
    // dashboard) while the client backs off, so its retry is answered 401. The 401 says nothing
    // of the first attempt: journaling REJECTED UNAUTHORIZED would free the reference for
    // another order and tell the operator the order was not taken.
    const added = await t.control.post(`/_control/merchants/${merchantId}/keys`, {});
    expect(added.status, added.text).toBe(201);
    const doomed: string = added.body.apiKey;
    let rotated = false;
    const api = client({
      apiKey: doomed,
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
      sleep: async () => {
        if (rotated) return;
        rotated = true;
        const answer = await t.control.post(`/_control/merchants/${merchantId}/keys/rotate`, {
          apiKey: doomed,
        });
        expect(answer.status, answer.text).toBe(201);
      },
    });
    await addFault({ kind: 'commit-then-drop', match: { operation: 'deposit' }, times: 1 });
    const mo = orderNo('retry-401');
    const order: CardOrder = { kind: 'DEPOSIT', cardId: activeCard, amount: '4.00' };
    const outcome = await desk(api).submit(order, { merchantOrderNo: mo });
    expect(upstreamOrders(mo)).toBe(1);
    expect(outcome.error?.code).toBe('UPSTREAM_UNAUTHORIZED');
    expect(outcome).toMatchObject({ state: 'SUBMITTED', errorCode: null });
    expect(row(mo)).toMatchObject({ state: 'SUBMITTED', error_code: null });
    expect(await desk().submit(order, { merchantOrderNo: mo })).toMatchObject({
      state: 'ACCEPTED',
      replayed: true,
    });
    expect(upstreamOrders(mo)).toBe(1);
  });
});

describe('OrderDesk.settle', () => {
  it('says ORDER_NOT_FOUND for a merchantOrderNo nobody journaled', async () => {
    await expect(desk().settle('never-journaled')).rejects.toThrow(
      expect.objectContaining({ code: 'ORDER_NOT_FOUND' }),
    );
  });

  it('answers a settled order from the journal without sending', async () => {
    const { api, calls } = counted(client());
    const mo = orderNo('settled');
    const first = await desk(api).submit(
      { kind: 'FREEZE', cardId: 'card_nope' },
      { merchantOrderNo: mo },
    );
    const again = await desk(api).settle(mo);
    expect(again).toMatchObject({
      state: first.state,
      errorCode: 'CARD_NOT_FOUND',
      fromJournal: true,
      sent: false,
    });
    expect(calls).toEqual(['freezeCard']);
  });

  it("refuses another merchant's order", async () => {
    const mo = orderNo('other');
    await desk().submit({ kind: 'FREEZE', cardId: 'card_nope' }, { merchantOrderNo: mo });
    const other = new OrderDesk({
      db: mirror.db,
      api: client(),
      merchantId: 'mch_other',
      currency: 'USD',
    });
    await expect(other.settle(mo)).rejects.toThrow(
      expect.objectContaining({
        code: 'ORDER_CONFLICT',
        message: expect.stringMatching(/journaled for merchant mch_/),
      }),
    );
  });
});
