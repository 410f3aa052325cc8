import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrdersTable } from '../../src/mirror/mirror-schema.js';
import { runCliProcess } from '../support/cli-process.js';
import { activeCard } from '../support/forced-transactions.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

const HOUR = 3_600_000;

/** How far a stamp may lie from the service clock: a Date header is to the second. */
const TOLERANCE_MS = 30_000;

describe('orders placed from the command line, the service clock three hours ahead of this host', () => {
  let t: TestSandbox;
  let dir: string;
  let db: string;
  let env: Record<string, string>;
  let card: string;

  beforeAll(async () => {
    t = await startTestSandbox({
      merchants: 1,
      seed: 'order-clock',
      world: { cards: 5, transactions: 20, days: 3, anomaliesPerCode: 0 },
    });
    dir = await mkdtemp(join(tmpdir(), 'cardsync-order-clock-'));
    db = join(dir, 'mirror.sqlite');
    env = {
      CARDSYNC_BASE_URL: t.sandbox.baseUrl,
      CARDSYNC_API_KEY: t.sandbox.merchants[0]!.apiKey,
      CARDSYNC_API_KEY_FILE: '',
      CARDSYNC_CA_FILE: t.sandbox.caFile,
      CARDSYNC_DB: db,
      // Known, so the command asks the upstream nothing before the order but for its clock.
      CARDSYNC_MERCHANT_ID: t.sandbox.merchants[0]!.merchantId,
    };
    card = activeCard(t);
    expect((await t.control.post('/_control/clock', { advanceMs: 3 * HOUR })).status).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  const serviceNow = async (): Promise<number> =>
    Date.parse((await t.control.get('/_control/clock')).body.now as string);

  const journaled = (ref: string): OrdersTable => {
    const mirror = new Database(db, { readonly: true });
    try {
      return mirror
        .prepare('SELECT * FROM orders WHERE merchant_order_no = ?')
        .get(ref) as OrdersTable;
    } finally {
      mirror.close();
    }
  };

  it('journals when the order was submitted and answered on the service clock, as the reconciliation compares them', async () => {
    const result = await runCliProcess(
      ['cards', 'freeze', card, '--merchant-order-no', 'clock-freeze-1', '--json'],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    const now = await serviceNow();
    expect(now - Date.now()).toBeGreaterThan(2 * HOUR);
    const row = journaled('clock-freeze-1');
    expect(row.state).toBe('ACCEPTED');
    // On this host's clock it would be three hours behind: past the reconciliation's one-hour
    // grace at once, so an order not yet processed was ORDER_NOT_REFLECTED.
    expect(Math.abs(Date.parse(row.submitted_at) - now)).toBeLessThan(TOLERANCE_MS);
    expect(Math.abs(Date.parse(row.updated_at) - now)).toBeLessThan(TOLERANCE_MS);
  });

  it('names a generated reference after the service clock too (unfreezing that card)', async () => {
    await t.control.post('/_control/orders/process', {});
    const result = await runCliProcess(['cards', 'unfreeze', card, '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    const ref = JSON.parse(result.stdout).merchantOrderNo as string;
    // cs-<UTC second>-<hex>: the second is the service's, not this host's.
    const second = /^cs-(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z-/.exec(ref)?.slice(1).map(Number);
    expect(second).toHaveLength(6);
    const [y, mo, d, h, mi, s] = second as number[];
    const now = await serviceNow();
    expect(Math.abs(Date.UTC(y!, mo! - 1, d, h, mi, s) - now)).toBeLessThan(TOLERANCE_MS);
    expect(Math.abs(Date.parse(journaled(ref).submitted_at) - now)).toBeLessThan(TOLERANCE_MS);
  });

  it('still places the order when the request for the clock gets no answer, and journals when it was submitted on the service clock once its own answer showed it', async () => {
    await t.control.post('/_control/orders/process', {});
    const rule = await t.control.post('/_control/faults', {
      kind: 'reset',
      match: { operation: 'getMerchantBalance' },
    });
    expect(rule.status).toBe(201);
    try {
      const result = await runCliProcess(
        ['cards', 'freeze', card, '--merchant-order-no', 'clock-freeze-2', '--json'],
        env,
      );
      expect(result.code, result.stderr).toBe(0);
      const row = journaled('clock-freeze-2');
      expect(row.state).toBe('ACCEPTED');
      // Stamped on the host's clock when it left, three hours behind: the purchases of the two
      // hours before this FREEZE were ACTIVITY_ON_INACTIVE_CARD. The order's own answer set the
      // clock by the time it was settled, and the stamp is taken again on it.
      const now = await serviceNow();
      expect(Math.abs(Date.parse(row.submitted_at) - now)).toBeLessThan(TOLERANCE_MS);
      expect(Math.abs(Date.parse(row.updated_at) - now)).toBeLessThan(TOLERANCE_MS);
    } finally {
      t.sandbox.faults.reset();
    }
  });

  it("journals a card's UNFREEZE after its FREEZE though the two commands, a second apart, read the service clock a second and more apart", async () => {
    await t.control.post('/_control/orders/process', {});
    const unfrozen = await runCliProcess(['cards', 'unfreeze', card, '--json'], env);
    expect(unfrozen.code, unfrozen.stderr).toBe(0);
    await t.control.post('/_control/orders/process', {});
    // The FREEZE command's one reading of the clock is answered late: its Date header, written
    // at the end of the wait, is taken for its middle, so that command puts the service clock
    // 1.5 to 2.5 s ahead of where it is; the UNFREEZE's prompt reading is off by half a second
    // at most.
    const rule = await t.control.post('/_control/faults', {
      kind: 'latency',
      ms: 4_000,
      match: { operation: 'getMerchantBalance' },
      times: 1,
    });
    expect(rule.status).toBe(201);
    try {
      const freeze = await runCliProcess(
        ['cards', 'freeze', card, '--merchant-order-no', 'clock-freeze-3', '--json'],
        env,
      );
      expect(freeze.code, freeze.stderr).toBe(0);
      await t.control.post('/_control/orders/process', {});
      const unfreeze = await runCliProcess(
        ['cards', 'unfreeze', card, '--merchant-order-no', 'clock-unfreeze-3', '--json'],
        env,
      );
      expect(unfreeze.code, unfreeze.stderr).toBe(0);
      // Stamped the other way round, the FREEZE was the card's latest: ORDER_NOT_REFLECTED on
      // an ACTIVE card, and every purchase an hour after it ACTIVITY_ON_INACTIVE_CARD.
      expect(Date.parse(journaled('clock-unfreeze-3').submitted_at)).toBeGreaterThan(
        Date.parse(journaled('clock-freeze-3').submitted_at),
      );
    } finally {
      t.sandbox.faults.reset();
    }
  });
});
