import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrdersTable } from '../../src/mirror/mirror-schema.js';
import { Database } from '../../src/sqlite-driver.js';
import { runCliProcess, sandboxCliEnv } from '../support/cli-process.js';
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
      ...sandboxCliEnv(t, db),
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

  /** Place an order on the card from the command line, exit 0 expected. */
  const place = async (kind: 'freeze' | 'unfreeze', ref?: string): Promise<string> => {
    const args = ['cards', kind, card, ...(ref ? ['--merchant-order-no', ref] : []), '--json'];
    const result = await runCliProcess(args, env);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout).merchantOrderNo as string;
  };

  /** Run `body` with a fault rule on the balance read, the command's one reading of the clock. */
  const withClockReadFault = async (rule: object, body: () => Promise<void>): Promise<void> => {
    await t.control.post('/_control/orders/process', {});
    const added = await t.control.post('/_control/faults', {
      ...rule,
      match: { operation: 'getMerchantBalance' },
    });
    expect(added.status).toBe(201);
    try {
      await body();
    } finally {
      t.sandbox.faults.reset();
    }
  };

  it('journals when the order was submitted and answered on the service clock, as the reconciliation compares them', async () => {
    await place('freeze', 'clock-freeze-1');
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
    const ref = await place('unfreeze');
    // cs-<UTC second>-<hex>: the second is the service's, not this host's.
    const second = /^cs-(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z-/.exec(ref)?.slice(1).map(Number);
    expect(second).toHaveLength(6);
    const [y, mo, d, h, mi, s] = second as number[];
    const now = await serviceNow();
    expect(Math.abs(Date.UTC(y!, mo! - 1, d, h, mi, s) - now)).toBeLessThan(TOLERANCE_MS);
    expect(Math.abs(Date.parse(journaled(ref).submitted_at) - now)).toBeLessThan(TOLERANCE_MS);
  });

  it('still places the order when the request for the clock gets no answer, and journals when it was submitted on the service clock once its own answer showed it', async () => {
    await withClockReadFault({ kind: 'reset' }, async () => {
      await place('freeze', 'clock-freeze-2');
      const row = journaled('clock-freeze-2');
      expect(row.state).toBe('ACCEPTED');
      // Stamped on the host's clock when it left, three hours behind: the purchases of the two
      // hours before this FREEZE were ACTIVITY_ON_INACTIVE_CARD. The order's own answer set the
      // clock by the time it was settled, and the stamp is taken again on it.
      const now = await serviceNow();
      expect(Math.abs(Date.parse(row.submitted_at) - now)).toBeLessThan(TOLERANCE_MS);
      expect(Math.abs(Date.parse(row.updated_at) - now)).toBeLessThan(TOLERANCE_MS);
    });
  });

  it("journals a card's UNFREEZE after its FREEZE though the two commands, a second apart, read the service clock a second and more apart", async () => {
    await t.control.post('/_control/orders/process', {});
    await place('unfreeze');
    // The FREEZE command's one reading of the clock is answered late: its Date header, written
    // at the end of the wait, is taken for its middle, so that command puts the service clock
    // 1.5 to 2.5 s ahead of where it is; the UNFREEZE's prompt reading is off by half a second
    // at most.
    await withClockReadFault({ kind: 'latency', ms: 4_000, times: 1 }, async () => {
      await place('freeze', 'clock-freeze-3');
      await t.control.post('/_control/orders/process', {});
      await place('unfreeze', 'clock-unfreeze-3');
      // Stamped the other way round, the FREEZE was the card's latest: ORDER_NOT_REFLECTED on
      // an ACTIVE card, and every purchase an hour after it ACTIVITY_ON_INACTIVE_CARD.
      expect(Date.parse(journaled('clock-unfreeze-3').submitted_at)).toBeGreaterThan(
        Date.parse(journaled('clock-freeze-3').submitted_at),
      );
    });
  });

  it('journals an UNFREEZE as submitted no later than the service took it though its clock read was answered late, so a purchase the card takes at once after it comes after it', async () => {
    await t.control.post('/_control/orders/process', {});
    await place('freeze', 'clock-freeze-4');
    await t.control.post('/_control/orders/process', {});
    // Frozen for two hours: a purchase now is past the reconciliation's one-hour grace.
    expect((await t.control.post('/_control/clock', { advanceMs: 2 * HOUR })).status).toBe(200);
    // The one reading of the clock waits 2 s and its Date header is written at the end of the
    // wait: the middle of what it bounds lies 0.5 to 1.5 s after the service clock.
    await withClockReadFault({ kind: 'latency', ms: 2_000, times: 1 }, async () => {
      await place('unfreeze', 'clock-unfreeze-4');
    });
    await t.control.post('/_control/orders/process', {});
    const purchase = await t.control.post(`/_control/cards/${card}/transactions`, {
      type: 'PURCHASE',
      amount: '1.00',
    });
    expect(purchase.body.data.status).toBe('PENDING');
    const { accepted_at: acceptedAt } = t.sandbox.context.store.db
      .prepare('SELECT accepted_at FROM orders WHERE merchant_order_no = ?')
      .get('clock-unfreeze-4') as { accepted_at: number };
    const submittedAt = Date.parse(journaled('clock-unfreeze-4').submitted_at);
    // Stamped at that middle, the UNFREEZE came after the purchase, which ACTIVITY_ON_INACTIVE_CARD
    // then took for one made on the card frozen two hours before.
    expect(submittedAt).toBeLessThanOrEqual(acceptedAt);
    expect(submittedAt).toBeLessThan(Date.parse(purchase.body.data.createdAt));
    expect(acceptedAt - submittedAt).toBeLessThan(TOLERANCE_MS);
  });
});
