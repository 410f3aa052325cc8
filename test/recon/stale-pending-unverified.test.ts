import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResults } from '../../src/recon/run-checks.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
import { failingAudit } from './support/failing-reads.js';
import { checkWorld } from './support/recon-world.js';
import { coverageOf } from './support/run-one.js';

const DAY = 86_400_000;

describe('STALE_PENDING after a sync whose count audit failed', () => {
  let w: SyncWorld;
  let transactionId: string;
  let unverified: CheckResults;
  let verified: CheckResults;

  beforeAll(async () => {
    w = await startSyncWorld({
      seed: 'stale-unverified',
      merchants: 1,
      world: { cards: 40, transactions: 300, days: 20, anomaliesPerCode: 0 },
    });
    const { c: cardId } = w.t.sandbox.context.store.db
      .prepare("SELECT card_id AS c FROM cards WHERE status = 'ACTIVE' AND balance_minor > 10000")
      .get() as { c: string };
    // PENDING for 6.5 days when first read; completed upstream before it turned stale.
    const posted = await w.t.control.post(`/_control/cards/${cardId}/transactions`, {
      type: 'PURCHASE',
      amount: '5.00',
      status: 'PENDING',
      createdAt: new Date(Date.now() - 6.5 * DAY).toISOString(),
    });
    expect(posted.status, posted.text).toBe(201);
    transactionId = posted.body.data.transactionId;
    expect((await w.sync()).outcome).toBe('done');
    const moved = await w.t.control.post(`/_control/transactions/${transactionId}/status`, {
      status: 'COMPLETED',
    });
    expect(moved.status, moved.text).toBe(200);
    await w.t.control.post('/_control/clock', { advanceMs: DAY });
    // A day on, the windows are read but the audit's count requests (limit 1) all fail.
    const failed = await w.sync({ wrapApi: failingAudit });
    expect(failed.merchants[0]?.transactions.outcome).toBe('done');
    expect(failed.merchants[0]?.audit.outcome).not.toBe('done');
    unverified = await checkWorld(w);
    expect((await w.sync()).outcome).toBe('done');
    verified = await checkWorld(w);
  });
  afterAll(async () => w?.close());

  it('reports no PENDING row as stale while the statuses are unchecked, and says why', () => {
    expect(unverified.findings.filter((f) => f.check === 'STALE_PENDING')).toEqual([]);
    expect(coverageOf(unverified, 'STALE_PENDING').skipped).toEqual([
      expect.objectContaining({
        reason: "the last sync's count audit did not finish: a PENDING status may be out of date",
      }),
    ]);
    expect(unverified.undecided).toContainEqual(
      expect.objectContaining({ check: 'STALE_PENDING', undecided: { all: true } }),
    );
  });

  it('judges again once a sync has checked them: the completed row is no finding', () => {
    expect(verified.findings.filter((f) => f.transactionId === transactionId)).toEqual([]);
    expect(coverageOf(verified, 'STALE_PENDING').skipped).toEqual([]);
  });
});
