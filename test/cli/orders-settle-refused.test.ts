import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/sqlite-driver.js';
import { runCliProcess, sandboxCliEnv } from '../support/cli-process.js';
import { orderNo, startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

let t: TestSandbox;
let dir: string;
let db: string;
let env: Record<string, string>;
let card: string;

function cli(args: readonly string[]) {
  return runCliProcess(args, env);
}

function journaled(merchantOrderNo: string): { state: string; error_code: string | null } {
  const mirror = new Database(db, { readonly: true });
  try {
    return mirror
      .prepare('SELECT state, error_code FROM orders WHERE merchant_order_no = ?')
      .get(merchantOrderNo) as { state: string; error_code: string | null };
  } finally {
    mirror.close();
  }
}

beforeAll(async () => {
  t = await startTestSandbox({ merchants: 1, seed: 'settle-refused' });
  dir = await mkdtemp(join(tmpdir(), 'cardsync-settle-refused-'));
  db = join(dir, 'mirror.sqlite');
  const merchant = t.sandbox.merchants[0] as (typeof t.sandbox.merchants)[number];
  env = { ...sandboxCliEnv(t, db), CARDSYNC_MERCHANT_ID: merchant.merchantId };
  const api = t.merchants[0] as (typeof t.merchants)[number];
  const offerings = (await api.get('/merchants/offerings')).body.data as {
    id: string;
    name: string;
  }[];
  const offering = offerings.find((o) => o.name.startsWith('Everyday'));
  const issued = await cli(['cards', 'issue', '--offering', `${offering?.id}`, '--amount', '50']);
  expect(issued.code, issued.stderr).toBe(0);
  await t.control.post('/_control/orders/process', {});
  const cards = (await api.get('/cards')).body.data as { cardId: string; status: string }[];
  card = (cards.find((c) => c.status === 'ACTIVE') as (typeof cards)[number]).cardId;
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * An order left SUBMITTED whose first request never arrived is taken afresh by its resend, or
 * refused: a FREEZE of a card frozen meanwhile is INVALID_CARD_STATE. `orders settle` journals
 * the refusal; the order was not placed, and the command says so by its exit code as
 * `cards freeze` does (7), not 0 as for an order settled ACCEPTED.
 */
describe('cardsync orders settle, the resend refused', () => {
  it('journals it REJECTED and exits 7', async () => {
    const ref = orderNo('settle-refused');
    await t.control.post('/_control/faults', {
      kind: 'reset',
      match: { operation: 'freezeCard' },
      times: 100,
    });
    const lost = await cli(['cards', 'freeze', card, '--merchant-order-no', ref]);
    await t.control.call('DELETE', '/_control/faults');
    expect(lost.code, lost.stderr).toBe(4);
    expect(journaled(ref).state).toBe('SUBMITTED');
    const other = await cli(['cards', 'freeze', card]);
    expect(other.code, other.stderr).toBe(0);
    await t.control.post('/_control/orders/process', {});

    const settled = await cli(['orders', 'settle', '--json']);
    expect(JSON.parse(settled.stdout).settled).toEqual([
      expect.objectContaining({
        merchantOrderNo: ref,
        state: 'REJECTED',
        errorCode: 'INVALID_CARD_STATE',
      }),
    ]);
    expect(journaled(ref)).toEqual({ state: 'REJECTED', error_code: 'INVALID_CARD_STATE' });
    expect(settled.code, settled.stderr).toBe(7);
    expect(settled.stderr).toMatch(new RegExp(`FREEZE ${ref} refused by the upstream`));
  }, 60_000);
});
