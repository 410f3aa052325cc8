import { addLandedTo, CommitBatcher } from './commit-batcher.js';
import type { TransactionCounts } from './sync-result.js';
import type { WindowCommit, WindowCounts } from './window-commit.js';
import type { WriterThread } from './writer-thread-client.js';

/**
 * Rows of finished windows that may wait behind a landing batch. Each batch crosses to the
 * writer thread whole (a copy on each side while it lands): at 20,000 rows the 1M sync's peak
 * was about 15 MiB higher than at 10,000. With the WAL checkpointed only every 128 MiB
 * (open-mirror.ts), the smaller batches cost little: the 1M upsert in 30.4 s against 28.6 s.
 * A window of more rows lands in parts of this many ({@link windowParts}).
 */
export const BATCH_ROWS = 10_000;

/**
 * Batches finished windows for the writer thread; what they wrote adds up in `counts`.
 * Each window lands whole with its done range.
 */
export function windowBatcher(
  writer: Pick<WriterThread, 'commit'>,
  options: { runId: string; counts: TransactionCounts },
): CommitBatcher<WindowCommit, WindowCounts> {
  return new CommitBatcher<WindowCommit, WindowCounts>({
    send: (windows) => writer.commit(options.runId, windows),
    landed: addLandedTo(options.counts),
    batchRows: BATCH_ROWS,
  });
}
