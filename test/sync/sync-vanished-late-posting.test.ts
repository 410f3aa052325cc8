import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CardIssuingClient } from '../../src/api/index.js';
import type { SyncApi } from '../../src/sync/sync-context.js';
import { capturedLog } from '../api/client-fixtures.js';
import { activeCard, postVerification } from '../support/forced-transactions.js';
import { type Losing, losingUpstream, vanishedIds } from '../support/losing-upstream.js';
import { corruptingTransaction } from '../support/malformed-records.js';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

describe('a row the upstream no longer shows, and a later late posting of its status', () => {
  let w: SyncWorld;
  let card: string;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'vanished-masks-late-posting',
      world: { cards: 30, transactions: 400, days: 30, anomaliesPerCode: 0 },
    });
    card = activeCard(w.t);
  });
  afterAll(async () => w.close());

  const post = (daysBack: number) =>
    postVerification(w.t, Date.now() - daysBack * 86_400_000, card);

  /** The upstream having lost `id` ({@link losingUpstream}); the row `broken` arrives malformed. */
  const losing =
    (id: string, how: Losing & { broken?: string } = {}) =>
    (api: CardIssuingClient): SyncApi => {
      const lost = losingUpstream(w.t, id, how)(api);
      return how.broken === undefined ? lost : corruptingTransaction(lost, how.broken);
    };

  const listed = (): string[] => vanishedIds(w.mirrorFile);

  /** Whether `log` holds the warning that the mirror holds rows the upstream no longer counts. */
  const warned = (log: ReturnType<typeof capturedLog>): boolean =>
    log
      .lines()
      .some(
        (l) =>
          l.level === 40 && l.msg === 'the mirror holds transactions the upstream no longer counts',
      );

  it('still reads a late posting of its status, and takes the row off the list when it is back', async () => {
    // A row ten days back, mirrored, then lost by the upstream: listed as vanished, once.
    const lost = await post(10);
    expect((await w.sync()).outcome).toBe('done');
    const log = capturedLog('info');
    const first = await w.sync({ wrapApi: losing(lost), logger: log.logger });
    expect(first.merchants[0]?.unsettled.vanished).toBe(1);
    expect(listed()).toEqual([lost]);
    expect(warned(log)).toBe(true);

    // A later night: a row of the same status posted late three weeks back, far before the
    // lookback. Only the count audit can find it; counting the lost row offset it.
    const late = await post(21);
    const result = await w.sync({ wrapApi: losing(lost) });
    expect(result.outcome).toBe('done');
    expect(result.merchants[0]?.unsettled.vanished).toBe(0);
    expect(compareMirror(w.t.sandbox, w.mirrorFile).missingTransactions).not.toContain(late);

    // The upstream shows the row again: read, and off the list.
    const back = await w.sync();
    expect(back.outcome).toBe('done');
    expect(listed()).toEqual([]);
    expect(compareMirror(w.t.sandbox, w.mirrorFile)).toEqual(NO_DIFFERENCES);
  });

  it('does not list a row that arrives malformed: it is there', async () => {
    // Two rows a second apart, in one range the audit reads: one lost, one arriving malformed.
    const lost = await post(12);
    const broken = await post(12 - 1 / 86_400);
    expect((await w.sync()).outcome).toBe('done');
    const result = await w.sync({ wrapApi: losing(lost, { broken }) });
    expect(result.outcome).toBe('done');
    expect(result.merchants[0]?.transactions.quarantined).toBeGreaterThan(0);
    expect(result.merchants[0]?.unsettled.vanished).toBe(1);
    expect(listed()).toEqual([lost]);
    expect((await w.sync()).outcome).toBe('done');
    expect(listed()).toEqual([]);
  });

  it('lists nothing from a reading whose count never matched', async () => {
    const lost = await post(14);
    expect((await w.sync()).outcome).toBe('done');
    const log = capturedLog('info');
    const result = await w.sync({
      wrapApi: losing(lost, { countedInPages: true }),
      logger: log.logger,
    });
    expect(result.outcome).toBe('done');
    // The counts say a row is gone; the reading of its millisecond never matched its count.
    expect(result.merchants[0]?.audit.surplus).toBeGreaterThan(0);
    expect(result.merchants[0]?.transactions.unverified).toBeGreaterThan(0);
    expect(result.merchants[0]?.unsettled.vanished).toBe(0);
    expect(listed()).toEqual([]);
    // Unsure whether the row is gone, so still worth a warning.
    expect(warned(log)).toBe(true);
  });
});
