import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { dropCardIndexWhileEmpty, hasCardIndex } from '../../src/mirror/card-index.js';
import { Database } from '../../src/sqlite-driver.js';
import { WriterThread } from '../../src/sync/writer-thread-client.js';
import { card, useTempMirrors } from '../mirror/mirror-fixtures.js';

const temp = useTempMirrors();

let copies = 0;

/** A fresh mirror whose schema is in its main file already (its migrations went to the WAL). */
function openMirror() {
  const mirror = temp.open();
  mirror.db.pragma('wal_checkpoint(TRUNCATE)');
  return mirror;
}

/** Cards in the mirror's main file alone: a copy without its WAL leaves out what only the WAL holds. */
function cardsInMainFile(file: string): number {
  const copy = join(temp.dir(), `main-file-${++copies}.sqlite`);
  copyFileSync(file, copy);
  const db = new Database(copy);
  try {
    return db.prepare('SELECT count(*) FROM cards').pluck().get() as number;
  } finally {
    db.close();
  }
}

describe('WriterThread', () => {
  it('lands a batch in the WAL, and a checkpoint copies it into the mirror file', async () => {
    const mirror = openMirror();
    const thread = WriterThread.start(mirror.file);
    temp.defer(() => thread.close());
    const page = {
      merchantId: 'm-1',
      cards: [card({ cardId: 'card-1' }), card({ cardId: 'card-2' })],
      quarantined: [],
      observedAt: '2026-02-01T02:00:00.000Z',
    };

    const [counts] = await thread.commitCards('run-1', [page]);
    expect(counts).toEqual({ inserted: 2, updated: 0, unchanged: 0, quarantined: 0 });
    // Committed and visible, but still in the WAL (the mirror checkpoints every 128 MiB).
    expect(mirror.db.prepare('SELECT count(*) FROM cards').pluck().get()).toBe(2);
    expect(cardsInMainFile(mirror.file)).toBe(0);

    await thread.checkpoint();
    expect(cardsInMainFile(mirror.file)).toBe(2);
  });

  it('builds a missing index by card, once, and says how long it took', async () => {
    const mirror = openMirror();
    expect(dropCardIndexWhileEmpty(mirror.db)).toBe(true);
    const thread = WriterThread.start(mirror.file);
    temp.defer(() => thread.close());
    expect(hasCardIndex(mirror.db)).toBe(false);

    const built = await thread.buildCardIndex();
    expect(built).toBeTypeOf('number');
    expect(hasCardIndex(mirror.db)).toBe(true);
    expect(await thread.buildCardIndex()).toBeUndefined();
  });

  it('checkpoints only once what was sent before it has landed', async () => {
    const mirror = openMirror();
    const thread = WriterThread.start(mirror.file);
    temp.defer(() => thread.close());
    const page = (cardId: string) => ({
      merchantId: 'm-1',
      cards: [card({ cardId })],
      quarantined: [],
      observedAt: '2026-02-01T02:00:00.000Z',
    });

    // Not awaited: the checkpoint is queued behind both batches.
    const landed = [
      thread.commitCards('run-1', [page('card-1')]),
      thread.commitCards('run-1', [page('card-2')]),
    ];
    await thread.checkpoint();
    await Promise.all(landed);
    expect(cardsInMainFile(mirror.file)).toBe(2);
  });

  it('reports a thread that ended on its own, and close() still settles', async () => {
    // Not a database: the thread fails as it opens it, as it would on a crash or its heap limit.
    const file = join(temp.dir(), 'not-a-mirror.sqlite');
    writeFileSync(file, 'this is not a SQLite file, and it is long enough to have a header page');
    const thread = WriterThread.start(file);
    await expect(thread.checkpoint()).rejects.toThrow();
    await expect(thread.commitCards('run-1', [])).rejects.toThrow();
    // Long after the thread has ended: a close() that waited for its exit again would hang.
    await sleep(500);
    await thread.close();
  }, 10_000);
});
