import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../support/test-sandbox.js';
import { clearFaults, rawCall, setFaults } from './raw-call.js';

const ISO_INSTANT = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g;

/** One observed call, with wall-clock instants masked (two sandboxes never share a clock). */
interface Observation {
  readonly call: string;
  readonly status: number;
  readonly headers: Record<string, unknown>;
  readonly body: string;
}

/** The same calls, in the same order, against a sandbox; writes included. */
async function script(t: TestSandbox): Promise<Observation[]> {
  const seen: Observation[] = [];
  const observe = async (
    call: string,
    method: 'GET' | 'POST',
    path: string,
    options: Parameters<typeof rawCall>[3] = {},
  ) => {
    const answer = await rawCall(t, method, path, options);
    const headers: Record<string, unknown> = {};
    for (const name of [
      'content-type',
      'content-length',
      'x-sandbox-version',
      'retry-after',
      'idempotent-replayed',
    ])
      headers[name] = answer.headers[name];
    seen.push({
      call,
      status: answer.status,
      headers,
      body: answer.text.replace(ISO_INSTANT, '<instant>'),
    });
    return answer;
  };
  await observe('balance', 'GET', '/merchants/balance');
  const offerings = await observe('offerings', 'GET', '/merchants/offerings');
  const offering = (
    JSON.parse(offerings.text).data as {
      id: string;
      minLoadAmount: string;
      requiresHolder: boolean;
    }[]
  ).find((o) => !o.requiresHolder);
  const order = {
    offeringId: offering?.id,
    amount: offering?.minLoadAmount,
    merchantOrderNo: 'restore-1',
  };
  await observe('issue', 'POST', '/cards', { body: order });
  await observe('issue again', 'POST', '/cards', { body: order });
  await t.control.post('/_control/orders/process', {});
  const cards = await observe('cards', 'GET', '/cards', { query: { limit: 100 } });
  const cardId = JSON.parse(cards.text).data[0]?.cardId as string;
  await observe('card', 'GET', '/cards/info', { query: { cardId } });
  await observe('transactions', 'GET', '/transactions', { query: { limit: 100 } });
  await observe('transactions page 2', 'GET', '/transactions', { query: { limit: 1, page: 2 } });
  await observe('other merchant', 'GET', '/cards', { merchant: 1 });
  await observe('unknown card', 'POST', '/cards/freeze', {
    body: { cardId: 'card_nope', merchantOrderNo: 'restore-2' },
  });
  await observe('bad query', 'GET', '/transactions', { query: { limit: 'abc' } });
  await observe('balance after', 'GET', '/merchants/balance');
  return seen;
}

describe('fault lab: off restores exact behaviour', () => {
  let faulty: TestSandbox;
  let clean: TestSandbox;
  beforeAll(async () => {
    [faulty, clean] = await Promise.all([
      startTestSandbox({ seed: 'lab-off' }),
      startTestSandbox({ seed: 'lab-off' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([faulty.close(), clean.close()]);
  });

  it('answers exactly as a sandbox that never had a fault once DELETE /_control/faults empties the lab', async () => {
    await setFaults(faulty, [
      { kind: 'latency', ms: 20 },
      { kind: 'page-size', max: 1 },
      { kind: 'rate-limit', match: { operation: 'getMerchantBalance' }, times: 1 },
      { kind: 'server-error', status: 502, match: { operation: 'listOfferings' } },
      { kind: 'truncate', match: { operation: 'listCards' }, times: 1 },
    ]);
    expect((await rawCall(faulty, 'GET', '/merchants/balance')).status).toBe(429);
    expect((await rawCall(faulty, 'GET', '/merchants/offerings')).status).toBe(502);
    expect(JSON.parse((await rawCall(faulty, 'GET', '/transactions')).text).pagination.limit).toBe(
      1,
    );
    await expect(rawCall(faulty, 'GET', '/cards')).rejects.toThrow();

    await clearFaults(faulty);
    const state = await faulty.control.get('/_control/faults');
    expect(state.body).toEqual({ active: false, rules: [] });

    const [afterLab, neverFaulted] = [await script(faulty), await script(clean)];
    expect(afterLab).toEqual(neverFaulted);
    expect(afterLab.find((o) => o.call === 'issue again')?.headers['idempotent-replayed']).toBe(
      'true',
    );
  });
});
