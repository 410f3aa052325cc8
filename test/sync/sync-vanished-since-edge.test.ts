import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerification } from '../support/forced-transactions.js';
import { losingUpstream, vanishedIds } from '../support/losing-upstream.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

describe('a vanished row back upstream on the millisecond before --since', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'vanished-since-edge',
      world: { cards: 30, transactions: 400, days: 30, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  const listed = (): string[] => vanishedIds(w.mirrorFile);

  it('comes off the list when the audit reads it, and is not read three times a run', async () => {
    const at = Date.now() - 10 * 86_400_000;
    const lost = await postVerification(w.t, at);
    expect((await w.sync()).outcome).toBe('done');
    expect((await w.sync({ wrapApi: losingUpstream(w.t, lost) })).outcome).toBe('done');
    expect(listed()).toEqual([lost]);

    // The upstream shows it again. A run from the millisecond after it: the audit's range starts
    // there, and its widened counts and reads reach the row.
    const back = await w.sync({ settings: { since: at + 1 } });
    expect(back.outcome).toBe('done');
    expect(listed()).toEqual([]);
    expect(back.merchants[0]?.audit.reread).toBeLessThanOrEqual(1);
  });
});
