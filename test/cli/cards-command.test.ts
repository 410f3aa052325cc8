import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrdersTable } from '../../src/mirror/mirror-schema.js';
import { Database } from '../../src/sqlite-driver.js';
import {
  configFileEnv,
  runCliProcess,
  sandboxCliEnv,
  startCliProcess,
} from '../support/cli-process.js';
import { orderNo, startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

let t: TestSandbox;
let dir: string;
let db: string;
let env: Record<string, string>;
let merchantId: string;
let offeringId: string;
let card: string;

/** The lines of stderr that are not pino's JSON logs. */
function messages(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('{') && !line.startsWith('(run with'));
}

function journal(merchantOrderNo: string): OrdersTable | undefined {
  if (!existsSync(db)) return undefined;
  const mirror = new Database(db, { readonly: true });
  try {
    return mirror
      .prepare('SELECT * FROM orders WHERE merchant_order_no = ?')
      .get(merchantOrderNo) as OrdersTable | undefined;
  } finally {
    mirror.close();
  }
}

function upstreamOrders(merchantOrderNo: string): number {
  const found = t.sandbox.context.store.db
    .prepare('SELECT count(*) AS n FROM orders WHERE merchant_order_no = ?')
    .get(merchantOrderNo) as { n: number };
  return found.n;
}

function cli(args: readonly string[], extra: Record<string, string> = {}) {
  return runCliProcess(args, { ...env, ...extra });
}

beforeAll(async () => {
  t = await startTestSandbox({ merchants: 1, seed: 'cards-cli' });
  dir = await mkdtemp(join(tmpdir(), 'cardsync-cards-cli-'));
  db = join(dir, 'data', 'mirror.sqlite');
  merchantId = t.sandbox.merchants[0]!.merchantId;
  env = { ...sandboxCliEnv(t, db), CARDSYNC_MERCHANT_ID: merchantId };
  const offerings = await t.merchants[0]!.get('/merchants/offerings');
  offeringId = (
    offerings.body.data as { id: string; requiresHolder: boolean; name: string }[]
  ).find((o) => o.name.startsWith('Everyday'))!.id;
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

describe('cardsync cards on bad input', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'a non-decimal amount',
      ['cards', 'deposit', 'card_1', '--amount', '12,50'],
      /--amount: expected a decimal amount/,
    ],
    [
      'a negative amount',
      ['cards', 'withdraw', 'card_1', '--amount', '-5'],
      /--amount: expected a decimal amount/,
    ],
    [
      'a zero amount',
      ['cards', 'deposit', 'card_1', '--amount', '0.00'],
      /--amount: expected an amount above zero/,
    ],
    ['a missing amount', ['cards', 'deposit', 'card_1'], /required option '--amount <decimal>'/],
    ['a missing card', ['cards', 'freeze'], /missing required argument 'cardId'/],
    [
      'a bad merchantOrderNo',
      ['cards', 'freeze', 'card_1', '--merchant-order-no', 'has space'],
      /--merchant-order-no: expected 1-64 printable ASCII/,
    ],
    ['a bad status', ['cards', 'list', '--status', 'LIVE'], /--status: expected one of PENDING/],
    [
      'a bad limit',
      ['cards', 'list', '--limit', '500'],
      /--limit must be a whole number from 1 to 100/,
    ],
    [
      'an unknown flag',
      ['cards', 'deposit', 'card_1', '--amount', '5', '--colour'],
      /unknown option '--colour'/,
    ],
    [
      'an amount more precise than the currency',
      ['cards', 'issue', '--offering', 'off_x', '--amount', '10.005'],
      /--amount: expected at most 2 decimals for USD, got "10.005"/,
    ],
    [
      'an amount given twice, instead of ordering the last one',
      ['cards', 'deposit', 'card_1', '--amount', '1.00', '--amount', '100.00'],
      /^cardsync: --amount: expected once, got "1\.00" and "100\.00"$/,
    ],
    [
      'an offering given twice',
      ['cards', 'issue', '--offering', 'off_a', '--offering', 'off_b', '--amount', '1.00'],
      /^cardsync: --offering: expected once, got "off_a" and "off_b"$/,
    ],
    [
      'a merchantOrderNo given twice',
      ['cards', 'freeze', 'card_1', '--merchant-order-no', 'a-1', '--merchant-order-no', 'a-2'],
      /^cardsync: --merchant-order-no: expected once, got "a-1" and "a-2"$/,
    ],
  ];
  for (const [name, args, message] of cases) {
    it(`exits 2 with one line naming ${name}; nothing sent or written`, async () => {
      const result = await cli(args);
      expect(result.code, result.stderr).toBe(2);
      expect(messages(result.stderr)).toEqual([expect.stringMatching(message)]);
      expect(existsSync(db)).toBe(false);
      expect(t.sandbox.context.store.db.prepare('SELECT count(*) AS n FROM orders').get()).toEqual({
        n: 0,
      });
    });
  }

  it('exits 2 when the config file names several merchants and --merchant picks none', async () => {
    const config = join(dir, 'two.json');
    // Two merchants of one service, each with a key of its own (one key twice is refused); the
    // one picked below holds the real key.
    const keyFile = (name: string) => join(dir, `${name}.key`);
    await writeFile(keyFile('eu'), `${env.CARDSYNC_API_KEY!}-eu`);
    await writeFile(keyFile('us'), env.CARDSYNC_API_KEY!);
    await writeFile(
      config,
      JSON.stringify({
        merchants: ['eu', 'us'].map((name) => ({
          name,
          baseUrl: t.sandbox.baseUrl,
          apiKeyFile: keyFile(name),
          caFile: t.sandbox.caFile,
        })),
      }),
    );
    const bare = configFileEnv(env);
    const result = await runCliProcess(['balance', '--config', config], bare);
    expect(result.code).toBe(2);
    expect(messages(result.stderr)).toEqual([
      expect.stringMatching(
        /--merchant: expected the merchant to use; the configuration names 2 \(eu, us\)/,
      ),
    ]);
    const picked = await runCliProcess(
      ['balance', '--config', config, '--merchant', 'us', '--json'],
      bare,
    );
    expect(picked.code, picked.stderr).toBe(0);
    expect(JSON.parse(picked.stdout)).toMatchObject({ currency: 'USD' });
  });

  it('orders settle without a mirror creates none: exit 2 when the merchant is unknown', async () => {
    // No card yet and no CARDSYNC_MERCHANT_ID: a configuration error, and exit 2 changes nothing.
    const unknown = await cli(['orders', 'settle'], { CARDSYNC_MERCHANT_ID: '' });
    expect(unknown.code, unknown.stderr).toBe(2);
    expect(messages(unknown.stderr)).toEqual([
      expect.stringMatching(/^cardsync: CARDSYNC_MERCHANT_ID: /),
    ]);
    expect(existsSync(db)).toBe(false);
    const missing = await cli(['orders', 'settle', '--merchant-order-no', 'never-sent']);
    expect(missing.code, missing.stderr).toBe(2);
    expect(messages(missing.stderr)).toEqual([
      expect.stringMatching(/no journaled order has merchantOrderNo never-sent/),
    ]);
    expect(existsSync(db)).toBe(false);
    const nothing = await cli(['orders', 'settle']);
    expect(nothing.code, nothing.stderr).toBe(0);
    expect(nothing.stdout).toBe('nothing to settle: no order is journaled SUBMITTED\n');
    expect(existsSync(db)).toBe(false);
  });
});

describe('cardsync cards orders, journaled', () => {
  it('issues a card: exit 0, the order journaled ACCEPTED with its orderNo', async () => {
    const ref = orderNo('issue');
    const result = await cli([
      'cards',
      'issue',
      '--offering',
      offeringId,
      '--amount',
      '50',
      '--merchant-order-no',
      ref,
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const outcome = JSON.parse(result.stdout);
    expect(outcome).toMatchObject({
      merchantId,
      merchantOrderNo: ref,
      kind: 'ISSUE',
      state: 'ACCEPTED',
      sent: true,
      replayed: false,
      fromJournal: false,
      error: null,
    });
    expect(journal(ref)).toMatchObject({
      state: 'ACCEPTED',
      order_no: outcome.orderNo,
      kind: 'ISSUE',
      offering_id: offeringId,
      amount: '50',
      amount_minor: 5000,
      currency: 'USD',
      source: 'cli',
      request_json: JSON.stringify({ offeringId, amount: '50', merchantOrderNo: ref }),
    });
    await t.control.post('/_control/orders/process', { orderNo: outcome.orderNo });
    const cards = await t.merchants[0]!.get('/cards', { query: { status: 'ACTIVE' } });
    card = cards.body.data[0].cardId;
  });

  it('prints one human line for an accepted order, and answers a resent reference from the journal', async () => {
    const ref = orderNo('deposit');
    const first = await cli([
      'cards',
      'deposit',
      card,
      '--amount',
      '5.00',
      '--merchant-order-no',
      ref,
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^DEPOSIT accepted: order ord_\w+ \(merchant order .+\)\n$/);
    const again = await cli([
      'cards',
      'deposit',
      card,
      '--amount',
      '5',
      '--merchant-order-no',
      ref,
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/already accepted; answered from the journal, nothing sent/);
    expect(upstreamOrders(ref)).toBe(1);
    const other = await cli([
      'cards',
      'deposit',
      card,
      '--amount',
      '6',
      '--merchant-order-no',
      ref,
    ]);
    expect(other.code).toBe(2);
    expect(messages(other.stderr)).toEqual([
      expect.stringMatching(/journaled ACCEPTED for DEPOSIT 5.00/),
    ]);
  });

  it('exits 7 with one line when the upstream refuses, the order journaled REJECTED', async () => {
    const ref = orderNo('too-much');
    const result = await cli([
      'cards',
      'withdraw',
      card,
      '--amount',
      '1000000',
      '--merchant-order-no',
      ref,
    ]);
    expect(result.code).toBe(7);
    expect(messages(result.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^cardsync: WITHDRAW ${ref} refused by the upstream: INSUFFICIENT_CARD_BALANCE; journaled REJECTED`,
        ),
      ),
    ]);
    expect(journal(ref)).toMatchObject({
      state: 'REJECTED',
      error_code: 'INSUFFICIENT_CARD_BALANCE',
    });
    const json = await cli([
      'cards',
      'withdraw',
      card,
      '--amount',
      '1000000',
      '--merchant-order-no',
      ref,
      '--json',
    ]);
    expect(json.code).toBe(7);
    expect(JSON.parse(json.stdout)).toMatchObject({
      state: 'REJECTED',
      fromJournal: true,
      sent: false,
    });
  });

  it('exits 3 when the upstream refuses the key, without printing it', async () => {
    const result = await cli(['cards', 'freeze', card], { CARDSYNC_API_KEY: 'sk_test_wrong_key' });
    expect(result.code).toBe(3);
    expect(messages(result.stderr)).toEqual([
      expect.stringMatching(
        /^cardsync: the upstream refused the key of default \(401\), read from CARDSYNC_API_KEY; FREEZE /,
      ),
    ]);
    expect(result.stderr + result.stdout).not.toContain('sk_test_wrong_key');
  });

  it('leaves a killed order SUBMITTED; the same command again settles it with one upstream order', async () => {
    await t.control.post('/_control/faults', {
      kind: 'latency',
      ms: 1500,
      match: { operation: 'freezeCard' },
      times: 1,
    });
    const ref = orderNo('killed');
    const running = startCliProcess(['cards', 'freeze', card, '--merchant-order-no', ref], env);
    await waitFor(() => journal(ref)?.state === 'SUBMITTED');
    running.child.kill('SIGKILL');
    await running.exited();
    expect(journal(ref)).toMatchObject({ state: 'SUBMITTED', order_no: null });
    await new Promise((resolve) => setTimeout(resolve, 1700));
    const again = await cli(['cards', 'freeze', card, '--merchant-order-no', ref, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ state: 'ACCEPTED', sent: true });
    expect(journal(ref)).toMatchObject({
      state: 'ACCEPTED',
      order_no: JSON.parse(again.stdout).orderNo,
    });
    expect(upstreamOrders(ref)).toBe(1);
    await t.control.post('/_control/orders/process', {});
  });

  it('settles a killed order with cardsync orders settle', async () => {
    await t.control.post('/_control/faults', {
      kind: 'latency',
      ms: 1500,
      match: { operation: 'unfreezeCard' },
      times: 1,
    });
    const ref = orderNo('settle');
    const running = startCliProcess(['cards', 'unfreeze', card, '--merchant-order-no', ref], env);
    await waitFor(() => journal(ref)?.state === 'SUBMITTED');
    running.child.kill('SIGKILL');
    await running.exited();
    await new Promise((resolve) => setTimeout(resolve, 1700));
    const settled = await cli(['orders', 'settle', '--json']);
    expect(settled.code, settled.stderr).toBe(0);
    expect(JSON.parse(settled.stdout).settled).toEqual([
      expect.objectContaining({ merchantOrderNo: ref, kind: 'UNFREEZE', state: 'ACCEPTED' }),
    ]);
    expect(upstreamOrders(ref)).toBe(1);
    const nothing = await cli(['orders', 'settle']);
    expect(nothing.stdout).toBe('nothing to settle: no order is journaled SUBMITTED\n');
  });

  it('names the generated reference to resend a lost order with, so following the message makes no second order', async () => {
    await t.control.post('/_control/orders/process', {});
    await t.control.post('/_control/faults', {
      kind: 'commit-then-drop',
      match: { operation: 'deposit' },
      times: 50,
    });
    const args = ['cards', 'deposit', card, '--amount', '1.25'];
    const lost = await cli(args);
    await t.control.call('DELETE', '/_control/faults');
    expect(lost.code, lost.stderr).toBe(4);
    const [line] = messages(lost.stderr);
    const ref = /DEPOSIT (\S+): outcome unknown/.exec(line ?? '')?.[1];
    expect(journal(ref!)).toMatchObject({ state: 'SUBMITTED' });
    // The order was taken before its answer was lost: only the same reference settles it.
    expect(upstreamOrders(ref!)).toBe(1);
    expect(line).toMatch(new RegExp(`run it again with --merchant-order-no ${ref}[ ;,]`));
    const again = await cli([...args, '--merchant-order-no', ref!, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ state: 'ACCEPTED', replayed: true });
    expect(upstreamOrders(ref!)).toBe(1);
  }, 30_000);
});

describe('cardsync cards reads, balance and offerings', () => {
  it('lists cards as a table and as JSON', async () => {
    const human = await cli(['cards', 'list']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^CARD\s+STATUS\s+BALANCE/);
    expect(human.stdout).toMatch(/page 1 of 1 \(1 cards\)\n$/);
    const json = JSON.parse((await cli(['cards', 'list', '--json', '--limit', '5'])).stdout);
    expect(json.pagination).toMatchObject({ page: 1, limit: 5, total: 1 });
    expect(json.data[0].cardId).toBe(card);
  });

  it('shows a card, and exits 7 for one the upstream does not know', async () => {
    const info = await cli(['cards', 'info', card, '--json']);
    expect(JSON.parse(info.stdout)).toMatchObject({ cardId: card, merchantId });
    const missing = await cli(['cards', 'info', 'card_missing']);
    expect(missing.code).toBe(7);
    expect(messages(missing.stderr)).toEqual([expect.stringMatching(/CARD_NOT_FOUND/)]);
  });

  it('masks the card number and CVV unless --reveal, and stores neither', async () => {
    const real = (await t.merchants[0]!.get('/cards/sensitive', { query: { cardId: card } })).body
      .data;
    const masked = await cli(['cards', 'sensitive', card]);
    expect(masked.code, masked.stderr).toBe(0);
    expect(masked.stdout).toContain(`**** **** **** ${real.cardNumber.slice(-4)}`);
    expect(masked.stdout).not.toContain(real.cardNumber);
    expect(masked.stdout).not.toMatch(new RegExp(`cvv\\s+${real.cvv}`));
    const json = JSON.parse((await cli(['cards', 'sensitive', card, '--json'])).stdout);
    expect(json).toMatchObject({ cvv: '***', masked: true, expiryMonth: real.expiryMonth });
    const revealed = JSON.parse(
      (await cli(['cards', 'sensitive', card, '--json', '--reveal'])).stdout,
    );
    expect(revealed).toMatchObject({ cardNumber: real.cardNumber, cvv: real.cvv, masked: false });
    for (const file of [db, `${db}-wal`].filter(existsSync))
      expect(readFileSync(file).includes(real.cardNumber)).toBe(false);
  });

  it('prints the merchant balance and the offerings', async () => {
    const balance = await cli(['balance']);
    expect(balance.stdout).toMatch(/^merchant balance: \d+\.\d{2} USD\n$/);
    const offerings = await cli(['offerings', '--json']);
    expect(JSON.parse(offerings.stdout).data.map((o: { id: string }) => o.id)).toContain(
      offeringId,
    );
    const table = await cli(['offerings']);
    expect(table.stdout).toMatch(/^OFFERING\s+NAME\s+NETWORK/);
  });
});

describe('cardsync cards orders after an import', () => {
  it("journals an order in the upstream's currency, not in that of books imported before any sync", async () => {
    // A JPY journal imported under this USD merchant before the first sync: the import has no
    // currency to hold it against but the file's own. The upstream still takes USD.
    const fresh = join(dir, 'after-import', 'mirror.sqlite');
    const books = join(dir, 'jpy-books.csv');
    await writeFile(
      books,
      'merchantOrderNo,kind,cardId,offeringId,amount,currency,submittedAt,orderNo\n' +
        'books-topup-1,TOPUP,,,5000,JPY,2026-11-20T10:00:00Z,\n',
    );
    const imported = await cli(['orders', 'import', books], { CARDSYNC_DB: fresh });
    expect(imported.code, imported.stderr).toBe(0);
    const ref = orderNo('after-jpy-books');
    const deposit = await cli(
      ['cards', 'deposit', card, '--amount', '1.50', '--merchant-order-no', ref, '--json'],
      { CARDSYNC_DB: fresh },
    );
    expect(deposit.code, deposit.stderr).toBe(0);
    const mirror = new Database(fresh, { readonly: true });
    try {
      expect(
        mirror.prepare('SELECT * FROM orders WHERE merchant_order_no = ?').get(ref),
      ).toMatchObject({ state: 'ACCEPTED', amount: '1.50', amount_minor: 150, currency: 'USD' });
    } finally {
      mirror.close();
    }
  });
});

describe('cardsync cards orders refused', () => {
  it('says what to do after a refusal: a new reference when the upstream keeps it, the same one when it does not', async () => {
    // INSUFFICIENT_CARD_BALANCE is kept against the reference (reference-model section 1):
    // re-running the same command after a top-up only answers the refusal again.
    const kept = orderNo('kept-refusal');
    const withdraw = ['cards', 'withdraw', card, '--amount', '1000000', '--merchant-order-no'];
    const first = await cli([...withdraw, kept]);
    const again = await cli([...withdraw, kept]);
    for (const result of [first, again]) {
      expect(result.code).toBe(7);
      expect(messages(result.stderr)).toEqual([
        expect.stringMatching(
          new RegExp(
            `INSUFFICIENT_CARD_BALANCE.*; the upstream keeps this refusal for ${kept}: once its cause is fixed, place the order again with a new --merchant-order-no \\(or none\\)$`,
          ),
        ),
      ]);
    }
    // HOLDER_REQUIRED is a 400: the reference is free again once the order is corrected. (This
    // issues a second card, hence this test's place after the reads.)
    const offerings = await t.merchants[0]!.get('/merchants/offerings');
    const holderOffering = (offerings.body.data as { id: string; requiresHolder: boolean }[]).find(
      (o) => o.requiresHolder,
    )!.id;
    const forgotten = orderNo('forgotten-refusal');
    const issue = ['cards', 'issue', '--offering', holderOffering, '--amount', '100'];
    const refused = await cli([...issue, '--merchant-order-no', forgotten]);
    expect(refused.code).toBe(7);
    expect(messages(refused.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `HOLDER_REQUIRED.*; the upstream does not keep this refusal: correct the order and run it again, with --merchant-order-no ${forgotten} if you like$`,
        ),
      ),
    ]);
    const corrected = await cli([...issue, '--holder', 'hold_1', '--merchant-order-no', forgotten]);
    expect(corrected.code, corrected.stderr).toBe(0);
    expect(journal(forgotten)).toMatchObject({ state: 'ACCEPTED' });
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
