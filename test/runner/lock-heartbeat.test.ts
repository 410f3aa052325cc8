import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readHolder } from '../../src/mirror/mirror-lock.js';
import { withMirrorLock } from '../../src/runner/held-lock.js';
import { runSync } from '../../src/sync/run-sync.js';
import { capturedLog } from '../api/client-fixtures.js';
import { useTempMirrors } from '../mirror/mirror-fixtures.js';

const temp = useTempMirrors();

const EXIT_CODES = { done: 0, unauthorized: 3, incomplete: 4, interrupted: 4, busy: 5 };

// The heartbeat is a timer: an error it threw escaped every try/catch of the run and ended the
// process with a raw stack trace (a `sqlite3` shell holding the mirror past the busy timeout
// at that moment, or a full disk), leaving the run `running` and its lock held.
describe('the mirror lock heartbeat', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('logs a heartbeat the mirror refused and keeps the run and its lock (withMirrorLock)', async () => {
    const { db } = temp.open();
    const log = capturedLog('warn');
    const result = await withMirrorLock({ db, runId: 'hb-run', logger: log.logger }, () => {
      // Writes refused, as on a full disk or a read-only file: the heartbeat fails.
      db.pragma('query_only = 1');
      try {
        expect(() => vi.advanceTimersByTime(15_000)).not.toThrow();
      } finally {
        db.pragma('query_only = 0');
      }
      expect(readHolder(db)?.runId).toBe('hb-run');
      return 'finished';
    });
    expect(result).toBe('finished');
    expect(readHolder(db)).toBeNull();
    expect(log.lines()).toContainEqual(
      expect.objectContaining({
        msg: 'could not refresh the mirror lock; trying again at the next heartbeat',
        err: expect.objectContaining({ code: 'SQLITE_READONLY' }),
      }),
    );
  });

  it('logs a heartbeat the mirror refused and keeps the run and its lock (runSync)', async () => {
    const { db } = temp.open();
    const log = capturedLog('warn');
    const synced = runSync({
      db,
      sources: [],
      settings: { concurrency: 1, maxPagesPerWindow: 10, lookbackMs: 0, safetyLagMs: 0 },
      logger: log.logger,
      signal: new AbortController().signal,
      runId: 'hb-sync',
      exitCodes: EXIT_CODES,
    });
    db.pragma('query_only = 1');
    try {
      expect(() => vi.advanceTimersByTime(15_000)).not.toThrow();
    } finally {
      db.pragma('query_only = 0');
    }
    await expect(synced).resolves.toMatchObject({ runId: 'hb-sync', outcome: 'done' });
    expect(readHolder(db)).toBeNull();
    expect(log.lines()).toContainEqual(
      expect.objectContaining({
        msg: 'could not refresh the mirror lock; trying again at the next heartbeat',
      }),
    );
  });
});
