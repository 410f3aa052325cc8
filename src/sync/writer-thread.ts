/**
 * The writer thread's entry point: lands batches of windows in the mirror on a connection of
 * its own, so SQLite's statements, commits and checkpoints run on the second core while the
 * main thread keeps the network busy. See {@link WriterThread}.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ensureCardIndex } from '../mirror/card-index.js';
import { createMirrorWriters } from '../mirror/mirror-writers.js';
import { openMirror } from '../mirror/open-mirror.js';
import { writeWindow } from './window-commit.js';
import type {
  CardPageCommit,
  CardPageCounts,
  CommitReply,
  CommitRequest,
  WriterThreadData,
} from './writer-thread-protocol.js';

const port = parentPort;
if (!port) throw new Error('writer-thread.js runs only as a worker thread');
const data = workerData as WriterThreadData;
// Upserts into the random-key indexes of a million-row table slow down several times over
// when their pages do not fit the cache (measured: 16 MiB against 64 MiB).
const WRITER_CACHE_KIB = 65_536;

const mirror = openMirror(data.file, {
  cacheKiB: WRITER_CACHE_KIB,
  // The sync may have dropped it to land a first sync's rows faster; it builds it again.
  repairCardIndex: false,
  ...(data.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: data.busyTimeoutMs }),
});
const writers = createMirrorWriters(mirror.db);

port.on('message', (request: CommitRequest | 'close') => {
  if (request === 'close') {
    void mirror.close().finally(() => port.close());
    return;
  }
  let reply: CommitReply;
  try {
    if (request.kind === 'cardIndex') {
      const started = performance.now();
      reply = ensureCardIndex(mirror.db)
        ? { id: request.id, counts: [], indexBuiltMs: Math.round(performance.now() - started) }
        : { id: request.id, counts: [] };
    } else {
      const counts =
        request.kind === 'checkpoint'
          ? checkpoint()
          : writers.atomically(() =>
              request.kind === 'windows'
                ? request.items.map((window) => writeWindow(writers, request.runId, window))
                : request.items.map((page) => writeCardPage(page, request.runId)),
            );
      reply = { id: request.id, counts };
    }
  } catch (error) {
    const { message, code } = error as { message?: string; code?: unknown };
    reply = {
      id: request.id,
      error: {
        message: message ?? String(error),
        ...(typeof code === 'string' ? { code } : {}),
      },
    };
  }
  port.postMessage(reply);
});

/** Copy the WAL back into the mirror file; it wrote no rows. */
function checkpoint(): [] {
  // PASSIVE: readers are never waited for; frames a reader still needs stay in the WAL.
  mirror.db.pragma('wal_checkpoint(PASSIVE)');
  return [];
}

function writeCardPage(page: CardPageCommit, runId: string): CardPageCounts {
  const write = { merchantId: page.merchantId, runId, observedAt: page.observedAt };
  const { conflicting = [], ...counts } = writers.cards.write(page.cards, write);
  const quarantined = writers.quarantine.write([...page.quarantined, ...conflicting], write);
  return { ...counts, quarantined };
}
