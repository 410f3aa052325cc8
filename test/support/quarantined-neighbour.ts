import { expect } from 'vitest';
import { Database } from '../../src/sqlite-driver.js';
import type { SyncResult } from '../../src/sync/sync-result.js';
import { activeCard, postForced } from './forced-transactions.js';
import { corruptingTransaction } from './malformed-records.js';
import { type SyncWorld, syncApiOf } from './sync-harness.js';

/** What {@link quarantineByNeighbourMove} left: the quarantined row and the run that did it. */
export interface QuarantinedNeighbour {
  /** The transaction mirrored valid, then read again malformed. */
  readonly broken: string;
  /** The sync that read it malformed. */
  readonly second: SyncResult;
}

/**
 * Two purchases a millisecond apart at `at`, synced; then the neighbour settles, so the count
 * audit reads their range again, and the first now arrives malformed: quarantined, the mirror
 * keeping the version read before. How a test has a mirrored transaction quarantined by a
 * later run.
 */
export async function quarantineByNeighbourMove(
  w: SyncWorld,
  at: number,
): Promise<QuarantinedNeighbour> {
  const card = activeCard(w.t);
  const post = (status: string, createdAt: number) =>
    postForced(w.t, card, { type: 'PURCHASE', status, amount: '1.00', createdAt });
  const broken = await post('COMPLETED', at);
  const moving = await post('PENDING', at + 1);
  expect((await w.sync()).outcome).toBe('done');
  const moved = await w.t.control.post(`/_control/transactions/${moving}/status`, {
    status: 'COMPLETED',
  });
  expect(moved.status).toBe(200);
  const second = await w.sync({
    wrapApi: (api) => corruptingTransaction(syncApiOf(api), broken),
  });
  return { broken, second };
}

/** When the mirror at `file` resolved transaction `id`'s quarantine row (null: still open). */
export function quarantineResolvedAt(file: string, id: string): string | null {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare(
        "SELECT resolved_at FROM quarantine WHERE resource = 'transactions' AND record_id = ?",
      )
      .pluck()
      .get(id) as string | null;
  } finally {
    db.close();
  }
}
