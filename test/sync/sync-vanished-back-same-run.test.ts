import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CardIssuingClient } from '../../src/api/index.js';
import type { SyncApi } from '../../src/sync/sync-context.js';
import { capturedLog } from '../api/client-fixtures.js';
import { postVerification } from '../support/forced-transactions.js';
import { losingUpstream, vanishedIds } from '../support/losing-upstream.js';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

describe('a row the upstream stops showing and shows again within one run', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'vanished-back-same-run',
      world: { cards: 30, transactions: 400, days: 30, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  /**
   * The upstream having lost the row `id` (created at `at`) through the count audit's first
   * reading of it, and showing it again from the next count on: the audit lists the row in one
   * round and reads it back in the next.
   */
  const lostThroughFirstAuditRead =
    (id: string, at: number) =>
    (api: CardIssuingClient): SyncApi => {
      const losing = losingUpstream(w.t, id)(api);
      const plain = syncApiOf(api);
      let auditing = false;
      let readOver = false;
      let back = false;
      return {
        ...plain,
        async listTransactions(query, options) {
          const counting = query.limit === 1;
          if (counting && readOver) back = true;
          if (counting) auditing = true;
          const page = await (back ? plain : losing).listTransactions(query, options);
          const over =
            (query.startTime === undefined || Date.parse(query.startTime) <= at) &&
            (query.endTime === undefined || at <= Date.parse(query.endTime));
          if (auditing && !counting && over) readOver = true;
          return page;
        },
      };
    };

  it('is not reported vanished, stays off the list, and raises no warning', async () => {
    const at = Date.now() - 10 * 86_400_000;
    const lost = await postVerification(w.t, at);
    expect((await w.sync()).outcome).toBe('done');

    const log = capturedLog('info');
    const result = await w.sync({
      wrapApi: lostThroughFirstAuditRead(lost, at),
      logger: log.logger,
    });
    expect(result.outcome).toBe('done');
    const merchant = result.merchants[0];
    // The audit saw the upstream count one row fewer, and read the range in a later round.
    expect(merchant?.audit.surplus).toBe(1);
    expect(merchant?.audit.reread).toBeGreaterThanOrEqual(2);
    // Seen again before the run ended: not gone.
    expect(merchant?.unsettled.vanished).toBe(0);
    expect(vanishedIds(w.mirrorFile)).toEqual([]);
    // Nothing for an operator to look into: the short count is noted at info, not warned of.
    const lines = log.lines();
    expect(lines.filter((l) => Number(l.level) >= 40)).toEqual([]);
    expect(
      lines.some(
        (l) =>
          l.msg ===
          'the upstream counted fewer transactions than the mirror holds; reading showed them all',
      ),
    ).toBe(true);
    expect(compareMirror(w.t.sandbox, w.mirrorFile)).toEqual(NO_DIFFERENCES);
  });
});
