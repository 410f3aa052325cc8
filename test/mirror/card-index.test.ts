import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CARD_INDEX,
  CREATE_CARD_INDEX,
  dropCardIndexWhileEmpty,
  ensureCardIndex,
  hasCardIndex,
} from '../../src/mirror/card-index.js';
import { createMirrorWriters } from '../../src/mirror/mirror-writers.js';
import { openMirror } from '../../src/mirror/open-mirror.js';
import type { SqliteDatabase } from '../../src/mirror/sqlite-database.js';
import { context, transaction, useTempMirrors } from './mirror-fixtures.js';

const temp = useTempMirrors();

/** The index SQLite plans a lookup of one card's transactions with, if any. */
function planByCard(db: SqliteDatabase): string {
  const steps = db
    .prepare("EXPLAIN QUERY PLAN SELECT created_at FROM transactions WHERE card_id = 'card-1'")
    .all() as { detail: string }[];
  return steps.map((s) => s.detail).join('; ');
}

function addTransactions(db: SqliteDatabase, count: number): void {
  const writers = createMirrorWriters(db);
  writers.atomically(() =>
    writers.transactions.write(
      Array.from({ length: count }, (_, i) =>
        transaction({ transactionId: `tx-${i}`, cardId: `card-${i % 7}` }),
      ),
      context('run-1', '2026-01-10T09:00:01.000Z'),
    ),
  );
}

describe('the index by card, built last by a first sync', () => {
  it('is created by the migrations exactly as card-index.ts builds it again', () => {
    const { db } = temp.open();
    const stored = db
      .prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?")
      .pluck()
      .get(CARD_INDEX);
    // SQLite keeps the statement without its IF NOT EXISTS.
    expect(stored).toBe(CREATE_CARD_INDEX.replace(' IF NOT EXISTS', ''));
  });

  it('is dropped for a mirror that holds no transaction yet, and only then', () => {
    const empty = temp.open('empty.sqlite').db;
    expect(dropCardIndexWhileEmpty(empty)).toBe(true);
    expect(hasCardIndex(empty)).toBe(false);
    expect(dropCardIndexWhileEmpty(empty)).toBe(false);

    const synced = temp.open('synced.sqlite').db;
    addTransactions(synced, 1);
    expect(dropCardIndexWhileEmpty(synced)).toBe(false);
    expect(hasCardIndex(synced)).toBe(true);
  });

  it('is built over the rows landed without it, leaving the connection as it was', () => {
    const { db } = temp.open();
    dropCardIndexWhileEmpty(db);
    addTransactions(db, 500);
    expect(planByCard(db)).not.toContain(CARD_INDEX);
    const before = [
      db.pragma('temp_store', { simple: true }),
      db.pragma('cache_size', { simple: true }),
      db.pragma('threads', { simple: true }),
    ];

    expect(ensureCardIndex(db)).toBe(true);
    expect(planByCard(db)).toContain(CARD_INDEX);
    // tx-1, tx-8, ..., tx-498: every seventh of the 500 rows.
    expect(
      db.prepare("SELECT count(*) FROM transactions WHERE card_id = 'card-1'").pluck().get(),
    ).toBe(72);
    expect([
      db.pragma('temp_store', { simple: true }),
      db.pragma('cache_size', { simple: true }),
      db.pragma('threads', { simple: true }),
    ]).toEqual(before);
    expect(ensureCardIndex(db)).toBe(false);
  });

  it('is built when the mirror is opened after a first sync stopped before building it', async () => {
    const file = join(temp.dir(), 'stopped.sqlite');
    const first = openMirror(file);
    dropCardIndexWhileEmpty(first.db);
    addTransactions(first.db, 20);
    await first.close();

    // The sync's writer thread leaves it to the sync; a reader cannot build it.
    const writer = openMirror(file, { repairCardIndex: false });
    expect(hasCardIndex(writer.db)).toBe(false);
    await writer.close();
    const reader = openMirror(file, { writable: false });
    expect(hasCardIndex(reader.db)).toBe(false);
    await reader.close();

    const next = openMirror(file);
    temp.defer(() => next.close());
    expect(hasCardIndex(next.db)).toBe(true);
    expect(planByCard(next.db)).toContain(CARD_INDEX);
  });

  it('is left to the first sync that holds the lock while it lands, and built once it is gone', async () => {
    const file = join(temp.dir(), 'landing.sqlite');
    const first = openMirror(file);
    dropCardIndexWhileEmpty(first.db);
    addTransactions(first.db, 20);
    // A first sync at work in another process of this host (our parent: alive), heartbeat fresh.
    const now = new Date().toISOString();
    first.db
      .prepare(
        'INSERT INTO run_lock (lock_id, run_id, pid, host, acquired_at, heartbeat_at) VALUES (1, ?, ?, ?, ?, ?)',
      )
      .run('run-landing', process.ppid, hostname(), now, now);
    await first.close();

    // Another command opening the mirror meanwhile would hold the write lock over its landing.
    const during = openMirror(file);
    expect(hasCardIndex(during.db)).toBe(false);
    // The sync died: its heartbeat went stale.
    during.db
      .prepare('UPDATE run_lock SET heartbeat_at = ?')
      .run(new Date(Date.now() - 600_000).toISOString());
    await during.close();

    const after = openMirror(file);
    temp.defer(() => after.close());
    expect(hasCardIndex(after.db)).toBe(true);
  });
});
