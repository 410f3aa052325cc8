import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResults } from '../../src/recon/run-checks.js';
import type { SyncWorld } from '../support/sync-harness.js';
import { activeCards, control, startOrderWorld, submitThroughDesk } from './support/desk-orders.js';
import { checkWorld } from './support/recon-world.js';
import { coverageOf } from './support/run-one.js';

const HOUR = 3_600_000;
const CODE = 'MERCHANT_BALANCE_MISMATCH';

/**
 * A DEPOSIT whose first sending never arrived is placed by its resend, hours later: the merchant
 * balance moves by it then (reference-model section 3: at acceptance), and the desk stamps the
 * row at the resend. One whose first sending was taken, only its answer lost, moved it then: its
 * replayed resend keeps the first stamp. A snapshot read between the two sendings shows the
 * balance before the first DEPOSIT and after the second: the interval up to it holds the second
 * only, and a movement the journal does not explain in it (a debit of 3.00 planted there) is
 * that interval's finding, neither hidden by the first DEPOSIT nor moved to the next interval.
 * While the rows await their answer, that interval is not judged.
 */
describe('MERCHANT_BALANCE_MISMATCH around a DEPOSIT placed by its resend', () => {
  let w: SyncWorld;
  let awaiting: CheckResults;
  let settled: CheckResults;
  let between: string;
  let resentAt: string;
  let submittedAt: string;
  beforeAll(async () => {
    w = await startOrderWorld('resent-deposit-balance');
    const merchantId = w.t.sandbox.merchants[0]?.merchantId as string;
    const [cardId, takenCard] = (await activeCards(w, 2)) as [string, string];
    expect((await w.sync()).outcome).toBe('done');
    await control(w, '/_control/clock', { advanceMs: HOUR });

    // The first sending never reaches the upstream: the row stays SUBMITTED.
    await control(w, '/_control/faults', {
      kind: 'reset',
      match: { operation: 'deposit' },
      times: 100,
    });
    const lost = await submitThroughDesk(w, { kind: 'DEPOSIT', cardId, amount: '10.00' });
    await w.t.control.call('DELETE', '/_control/faults');
    expect(lost.state).toBe('SUBMITTED');
    // Another is taken, only its answer lost: the balance moves by it at its first sending.
    await control(w, '/_control/faults', {
      kind: 'commit-then-drop',
      match: { operation: 'deposit' },
      times: 100,
    });
    const taken = await submitThroughDesk(w, {
      kind: 'DEPOSIT',
      cardId: takenCard,
      amount: '7.00',
    });
    await w.t.control.call('DELETE', '/_control/faults');
    expect(taken.state).toBe('SUBMITTED');
    const first = await control(w, '/_control/orders/process', {});
    expect(first.processed.map((p: { outcome: string }) => p.outcome)).toEqual(['success']);
    await control(w, '/_control/clock', { advanceMs: HOUR });
    await control(w, `/_control/merchants/${merchantId}/unjournaled-movement`, {
      amount: '3.00',
      direction: 'debit',
    });
    await control(w, '/_control/clock', { advanceMs: HOUR });
    expect((await w.sync()).outcome).toBe('done');
    awaiting = await checkWorld(w);

    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    resentAt = (await w.t.control.get('/_control/clock')).body.now as string;
    const resent = await submitThroughDesk(
      w,
      { kind: 'DEPOSIT', cardId, amount: '10.00' },
      { merchantOrderNo: lost.merchantOrderNo },
    );
    expect([resent.state, resent.replayed]).toEqual(['ACCEPTED', false]);
    const replayed = await submitThroughDesk(
      w,
      { kind: 'DEPOSIT', cardId: takenCard, amount: '7.00' },
      { merchantOrderNo: taken.merchantOrderNo },
    );
    expect([replayed.state, replayed.replayed]).toEqual(['ACCEPTED', true]);
    const processed = await control(w, '/_control/orders/process', {});
    expect(processed.processed.map((p: { outcome: string }) => p.outcome)).toEqual(['success']);
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    expect((await w.sync()).outcome).toBe('done');
    settled = await checkWorld(w);

    const mirror = w.openMirror();
    try {
      between = mirror.db
        .prepare('SELECT observed_at FROM merchant_balances ORDER BY observed_at LIMIT 1 OFFSET 1')
        .pluck()
        .get() as string;
      submittedAt = mirror.db
        .prepare('SELECT submitted_at FROM orders WHERE merchant_order_no = ?')
        .pluck()
        .get(lost.merchantOrderNo) as string;
    } finally {
      await mirror.close();
    }
  }, 120_000);
  afterAll(async () => w?.close());

  it('leaves the interval of the unanswered row undecided', () => {
    expect(awaiting.findings.filter((f) => f.check === CODE)).toEqual([]);
    expect(coverageOf(awaiting, CODE).skipped).toEqual([
      {
        unit: 'intervals',
        reason: 'an order between the snapshots with no orderNo or no amount',
        count: 1,
      },
    ]);
  });

  it('once placed, reports the planted debit in its own interval and the DEPOSIT in the next', () => {
    expect(coverageOf(settled, CODE).skipped).toEqual([]);
    expect(coverageOf(settled, CODE).examined).toEqual({ intervals: 2, orders: 2 });
    expect(
      settled.findings
        .filter((f) => f.check === CODE)
        .map((f) => [f.snapshotAt, f.expected, f.actual, f.delta].map(String)),
    ).toEqual([[between, expect.any(String), expect.any(String), '-3.00']]);
  });

  it('stamps the row at the resend, which placed it', () => {
    expect(submittedAt >= resentAt, `submitted ${submittedAt}, resent ${resentAt}`).toBe(true);
  });
});
