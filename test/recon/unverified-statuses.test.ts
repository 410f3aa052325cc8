import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckCode } from '../../src/recon/check-code.js';
import type { CheckResults } from '../../src/recon/run-checks.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
import { failingAudit } from './support/failing-reads.js';
import { checkWorld } from './support/recon-world.js';
import { coverageOf } from './support/run-one.js';

const DAY = 86_400_000;
const UNVERIFIED = "the last sync's count audit did not finish";

describe('checks of statuses after a sync whose count audit failed (older rows not re-read)', () => {
  let w: SyncWorld;
  let heldCard: string;
  let retryCard: string;
  let retried: string;
  let unverified: CheckResults;
  let verified: CheckResults;

  beforeAll(async () => {
    w = await startSyncWorld({
      seed: 'recon-unverified-statuses',
      merchants: 1,
      world: { cards: 40, transactions: 300, days: 20, anomaliesPerCode: 0 },
    });
    [heldCard, retryCard] = w.t.sandbox.context.store.db
      .prepare(
        "SELECT card_id FROM cards WHERE status = 'ACTIVE' AND balance_minor > 10000 ORDER BY card_id LIMIT 2",
      )
      .pluck()
      .all() as [string, string];
    const post = async (cardId: string, body: Record<string, unknown>) => {
      const posted = await w.t.control.post(`/_control/cards/${cardId}/transactions`, body);
      expect(posted.status, posted.text).toBe(201);
      return posted.body.data as { transactionId: string; tradeNo: string };
    };
    // Holds of five days ago, on the cards' balances when the first sync reads them.
    const holds = [];
    for (const cardId of [heldCard, retryCard])
      holds.push(
        await post(cardId, {
          type: 'PURCHASE',
          amount: '5.00',
          status: 'PENDING',
          createdAt: new Date(Date.now() - 5 * DAY).toISOString(),
        }),
      );
    expect((await w.sync()).outcome).toBe('done');
    // After that sync both holds are declined, and the second purchase is made again under its
    // tradeNo.
    for (const hold of holds) {
      const moved = await w.t.control.post(`/_control/transactions/${hold.transactionId}/status`, {
        status: 'DECLINED',
      });
      expect(moved.status, moved.text).toBe(200);
    }
    await w.t.control.post('/_control/clock', { advanceMs: DAY });
    retried = (
      await post(retryCard, { type: 'PURCHASE', amount: '5.00', tradeNo: holds[1]?.tradeNo })
    ).transactionId;
    // The sync reads up to the upstream's present as it estimates it from Date headers, to the
    // second: a purchase made in the same second may be left to the next run.
    await w.t.control.post('/_control/clock', { advanceMs: 5_000 });
    // A day on, the cards and the windows are read but the audit's count requests all fail.
    const failed = await w.sync({ wrapApi: failingAudit });
    expect(failed.merchants[0]?.cards.outcome).toBe('done');
    expect(failed.merchants[0]?.transactions.outcome).toBe('done');
    expect(failed.merchants[0]?.audit.outcome).not.toBe('done');
    unverified = await checkWorld(w);
    expect((await w.sync()).outcome).toBe('done');
    verified = await checkWorld(w);
  });
  afterAll(async () => w?.close());

  const of = (results: CheckResults, code: CheckCode) =>
    results.findings.filter((f) => f.check === code);
  const undecidedOf = (results: CheckResults, code: CheckCode, key: string) => {
    const undecided = results.undecided.find((u) => u.check === code)?.undecided;
    return undecided?.all ? 'all' : [...(undecided?.ids.get(key) ?? [])];
  };
  const reasons = (results: CheckResults, code: CheckCode) =>
    coverageOf(results, code).skipped.map((s) => s.reason);

  it('does not hold a balance read after a hold expired against the hold still PENDING in the mirror', () => {
    expect(of(unverified, 'CARD_BALANCE_MISMATCH')).toEqual([]);
    expect(reasons(unverified, 'CARD_BALANCE_MISMATCH').some((r) => r.startsWith(UNVERIFIED))).toBe(
      true,
    );
    expect(undecidedOf(unverified, 'CARD_BALANCE_MISMATCH', 'cardId')).toContain(heldCard);
  });

  it('does not take a purchase made again for a duplicate of the declined one, still PENDING in the mirror', () => {
    expect(of(unverified, 'DUPLICATE_TRANSACTION')).toEqual([]);
    expect(reasons(unverified, 'DUPLICATE_TRANSACTION').some((r) => r.startsWith(UNVERIFIED))).toBe(
      true,
    );
    expect(undecidedOf(unverified, 'DUPLICATE_TRANSACTION', 'transactionId')).toContain(retried);
  });

  it('finds none of them once a sync has checked the statuses', () => {
    for (const code of ['CARD_BALANCE_MISMATCH', 'DUPLICATE_TRANSACTION'] as const)
      expect(of(verified, code)).toEqual([]);
  });
});
