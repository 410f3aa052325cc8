import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_FLOOR } from '../../src/sync/time-range.js';
import {
  quarantineByNeighbourMove,
  quarantineResolvedAt,
} from '../support/quarantined-neighbour.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

describe('a mirrored transaction dated before the history floor that arrived malformed', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'quarantine-before-floor',
      world: { cards: 20, transactions: 300, days: 20, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('is resolved once read valid again, and its range is not read every night after', async () => {
    // A day before the floor: only the audit of the time before the oldest card reads it.
    const { broken, second } = await quarantineByNeighbourMove(w, HISTORY_FLOOR - 86_400_000);
    expect(second.merchants[0]?.transactions.quarantined).toBe(1);

    // Repaired upstream: read again (it was quarantined), and resolved.
    const repaired = await w.sync();
    expect(repaired.outcome).toBe('done');
    expect(quarantineResolvedAt(w.mirrorFile, broken)).not.toBeNull();
    // Nothing moved since: a quiet night reads nothing.
    const quiet = await w.sync();
    expect(quiet.merchants[0]?.audit.reread).toBe(0);
  });
});
