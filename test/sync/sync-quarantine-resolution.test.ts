import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corruptingTransaction } from '../support/malformed-records.js';
import {
  quarantineByNeighbourMove,
  quarantineResolvedAt,
} from '../support/quarantined-neighbour.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

describe('a mirrored transaction that later arrives malformed', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-quarantine-resolution',
      world: { cards: 30, transactions: 400, days: 30, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('stays unresolved in quarantine while no valid version of it has arrived since', async () => {
    // Two rows far before the lookback, a millisecond apart; the second run reads the first
    // malformed.
    const { broken, second } = await quarantineByNeighbourMove(w, Date.now() - 20 * 86_400_000);
    expect(second.outcome).toBe('done');
    expect(second.merchants[0]!.transactions.quarantined).toBe(1);

    // Still malformed upstream, but nothing in its range moved, so no window reads it.
    const third = await w.sync({ wrapApi: (api) => corruptingTransaction(syncApiOf(api), broken) });
    expect(third.outcome).toBe('done');
    expect(quarantineResolvedAt(w.mirrorFile, broken)).toBeNull();
    // Repaired upstream: read again (it was quarantined), and resolved.
    expect((await w.sync()).outcome).toBe('done');
    expect(quarantineResolvedAt(w.mirrorFile, broken)).not.toBeNull();
  });
});
