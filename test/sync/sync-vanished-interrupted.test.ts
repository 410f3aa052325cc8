import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CardIssuingClient } from '../../src/api/index.js';
import type { SyncApi } from '../../src/sync/sync-context.js';
import { postVerification } from '../support/forced-transactions.js';
import { losingUpstream, vanishedIds } from '../support/losing-upstream.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

describe('a run stopped while the count audit reads a range with rows gone', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'vanished-interrupted',
      world: { cards: 30, transactions: 400, days: 30, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  const listed = (): string[] => vanishedIds(w.mirrorFile);

  /**
   * The upstream having lost `id`, serving pages of 10 rows (so the audit's range is cut in
   * parts), and `stop` aborted as soon as the audit's first page read is answered: the parts
   * queued behind it never start.
   */
  const losingThenStopped =
    (id: string, stop: AbortController) =>
    (api: CardIssuingClient): SyncApi => {
      const losing = losingUpstream(w.t, id)(api);
      let auditing = false;
      return {
        ...losing,
        async listTransactions(query, options) {
          const counting = query.limit === 1;
          if (counting) auditing = true;
          const asked = counting ? query : { ...query, limit: Math.min(query.limit ?? 20, 10) };
          const page = await losing.listTransactions(asked, options);
          if (auditing && !counting) stop.abort();
          return page;
        },
      };
    };

  it('lists no row it never read as vanished', async () => {
    const lost = await postVerification(w.t, Date.now() - 10 * 86_400_000);
    expect((await w.sync()).outcome).toBe('done');
    const stop = new AbortController();
    const stopped = await w.sync({ signal: stop.signal, wrapApi: losingThenStopped(lost, stop) });
    expect(stop.signal.aborted).toBe(true);
    expect(stopped.outcome).toBe('interrupted');
    // The range's parts were never read: none of its rows is known to be gone.
    expect(listed()).toEqual([]);
  });
});
