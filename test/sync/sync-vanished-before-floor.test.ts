import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_FLOOR } from '../../src/sync/time-range.js';
import { activeCard, postVerification } from '../support/forced-transactions.js';
import { losingUpstream, vanishedIds } from '../support/losing-upstream.js';
import { compareMirror } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

describe('a row dated before the history floor that the upstream no longer shows', () => {
  let w: SyncWorld;
  let card: string;
  let oldestCard: number;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'vanished-before-floor',
      world: { cards: 20, transactions: 300, days: 20, anomaliesPerCode: 0 },
    });
    card = activeCard(w.t);
    oldestCard = w.t.sandbox.context.store.db
      .prepare('SELECT min(created_at) FROM cards')
      .pluck()
      .get() as number;
  });
  afterAll(async () => w.close());

  const post = (createdAt: number) => postVerification(w.t, createdAt, card);

  const listed = (): string[] => vanishedIds(w.mirrorFile);

  it('is listed as vanished, so a later late posting before the oldest card is still read', async () => {
    // Dated a day before the floor (an epoch-like default of an upstream, say): the audit counts
    // it, since the history before the oldest card is asked for with no lower bound.
    const lost = await post(HISTORY_FLOOR - 86_400_000);
    expect((await w.sync()).outcome).toBe('done');
    expect(compareMirror(w.t.sandbox, w.mirrorFile).missingTransactions).not.toContain(lost);

    const gone = await w.sync({ wrapApi: losingUpstream(w.t, lost) });
    expect(gone.outcome).toBe('done');
    expect(gone.merchants[0]?.unsettled.vanished).toBe(1);
    expect(listed()).toEqual([lost]);

    // A later night: a row of the same status posted late before the oldest card. Counting the
    // lost row would offset it, and nothing but the audit reads that time.
    const late = await post(oldestCard - 2 * 86_400_000);
    const night = await w.sync({ wrapApi: losingUpstream(w.t, lost) });
    expect(night.outcome).toBe('done');
    expect(night.merchants[0]?.audit.surplus).toBe(0);
    expect(compareMirror(w.t.sandbox, w.mirrorFile).missingTransactions).not.toContain(late);
  });
});
