import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/api/index.js';
import { CARD_INDEX } from '../../src/mirror/card-index.js';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { Database } from '../../src/sqlite-driver.js';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

/** Whether the mirror file has the index by card, read by a connection of its own. */
function hasIndex(file: string): boolean {
  const db = new Database(file, { readonly: true });
  try {
    return (
      db
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?")
        .get(CARD_INDEX) !== undefined
    );
  } finally {
    db.close();
  }
}

/** Whether a reader found the index, once per page of transactions asked for (in order). */
async function syncWatchingIndex(w: SyncWorld): Promise<{ outcome: string; seen: boolean[] }> {
  const seen: boolean[] = [];
  const result = await w.sync({
    wrapApi: (api) => ({
      ...syncApiOf(api),
      listTransactions: (query, options) => {
        seen.push(hasIndex(w.mirrorFile));
        return api.listTransactions(query, options);
      },
    }),
  });
  return { outcome: result.outcome, seen };
}

describe('the index by card during a sync', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-card-index',
      world: { cards: 100, transactions: 3000, days: 30, anomaliesPerCode: 1 },
    });
  });
  afterAll(async () => w.close());

  it('is left out while a first sync lands its rows, then built over them', async () => {
    const first = await syncWatchingIndex(w);
    expect(first.outcome).toBe('done');
    expect(first.seen.length).toBeGreaterThan(10);
    // Rows landed without it, and the missing-card check (which needs it) ran after it was built.
    expect(first.seen.filter((present) => !present).length).toBeGreaterThan(10);
    expect(hasIndex(w.mirrorFile)).toBe(true);
    expect(compareMirror(w.t.sandbox, w.mirrorFile)).toEqual(NO_DIFFERENCES);
    const db = new Database(w.mirrorFile, { readonly: true });
    try {
      const plan = db
        .prepare('EXPLAIN QUERY PLAN SELECT created_at FROM transactions WHERE card_id = ?')
        .all('any') as { detail: string }[];
      expect(plan.map((step) => step.detail).join('; ')).toContain(CARD_INDEX);
    } finally {
      db.close();
    }
  });

  it('is built at the end of a first sync that failed before its own check', async () => {
    const file = join(w.dir, 'failed.sqlite');
    let calls = 0;
    const result = await w.sync({
      mirrorFile: file,
      wrapApi: (api) => ({
        ...syncApiOf(api),
        listTransactions: (query, options) => {
          calls += 1;
          if (calls > 5)
            return Promise.reject(
              new UpstreamError('UPSTREAM_UNAVAILABLE', 'listTransactions: 503', {
                operation: 'listTransactions',
                status: 503,
                attempts: 6,
              }),
            );
          return api.listTransactions(query, options);
        },
      }),
    });
    expect(result.outcome).toBe('incomplete');
    expect(hasIndex(file)).toBe(true);
  });

  it('is left to the next command that opens the mirror when a first sync is stopped', async () => {
    const file = join(w.dir, 'stopped.sqlite');
    const stop = new AbortController();
    let calls = 0;
    const result = await w.sync({
      mirrorFile: file,
      signal: stop.signal,
      wrapApi: (api) => ({
        ...syncApiOf(api),
        listTransactions: (query, options) => {
          calls += 1;
          if (calls === 5) stop.abort();
          return api.listTransactions(query, options);
        },
      }),
    });
    expect(result.outcome).toBe('interrupted');
    // A stop must end within seconds: the index, however long its build, waits.
    expect(hasIndex(file)).toBe(false);
    const next = openMirror(file);
    try {
      expect(hasIndex(file)).toBe(true);
    } finally {
      await next.close();
    }
  });

  it('is kept by every later sync, the mirror holding rows', async () => {
    const later = await syncWatchingIndex(w);
    expect(later.outcome).toBe('done');
    expect(later.seen.length).toBeGreaterThan(0);
    expect(later.seen.every((present) => present)).toBe(true);
  });
});
