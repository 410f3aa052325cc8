import { describe, expect, it } from 'vitest';
import { acquireMirrorLock, readHolder } from '../../src/mirror/mirror-lock.js';
import { Database } from '../../src/sqlite-driver.js';
import { mirrorErrorOf, useTempMirrors } from './mirror-fixtures.js';

const temp = useTempMirrors();

const T0 = Date.parse('2026-03-01T02:00:00.000Z');
const alive = () => true;
const dead = () => false;
let runs = 0;

/** A run id no other test has used: the lock module remembers the runs this process holds. */
function runId(label: string): string {
  runs += 1;
  return `${label}-${runs}`;
}

describe('acquireMirrorLock', () => {
  it('records the holder with pid, host and heartbeat, replacing nobody', () => {
    const { db } = temp.open();
    const id = runId('first');
    const lock = acquireMirrorLock(db, { runId: id, pid: 1001, host: 'box-a', now: () => T0 });
    expect(lock.replaced).toBeNull();
    expect(readHolder(db)).toEqual({
      runId: id,
      pid: 1001,
      host: 'box-a',
      acquiredAt: '2026-03-01T02:00:00.000Z',
      heartbeatAt: '2026-03-01T02:00:00.000Z',
    });
  });

  it('refuses a second run with MIRROR_LOCKED naming the live holder', () => {
    const { db } = temp.open();
    const holder = runId('holder');
    acquireMirrorLock(db, { runId: holder, pid: 1001, host: 'box-a', now: () => T0 });
    const error = mirrorErrorOf(
      () =>
        acquireMirrorLock(db, {
          runId: runId('second'),
          pid: 1002,
          host: 'box-a',
          now: () => T0 + 1000,
          isAlive: alive,
        }),
      'MIRROR_LOCKED',
    );
    expect(error.message).toContain(holder);
    expect(error.message).toContain('pid 1001');
    expect(error.message).toContain('box-a');
    expect(readHolder(db)?.runId).toBe(holder);
  });

  it('refuses a second run through another connection to the same file', () => {
    const mirror = temp.open();
    const holder = runId('holder');
    acquireMirrorLock(mirror.db, { runId: holder, pid: 1001, host: 'box-a', now: () => T0 });
    const other = new Database(mirror.file);
    temp.defer(() => other.close());
    mirrorErrorOf(
      () =>
        acquireMirrorLock(other, {
          runId: runId('other'),
          pid: 1002,
          host: 'box-a',
          now: () => T0,
          isAlive: alive,
        }),
      'MIRROR_LOCKED',
    );
  });

  it('replaces a holder whose process died on this host and reports it in replaced', () => {
    const { db } = temp.open();
    const crashed = runId('crashed');
    acquireMirrorLock(db, { runId: crashed, pid: 1001, host: 'box-a', now: () => T0 });
    const seen: number[] = [];
    const next = runId('next');
    const lock = acquireMirrorLock(db, {
      runId: next,
      pid: 1002,
      host: 'box-a',
      now: () => T0 + 5_000,
      isAlive: (pid) => {
        seen.push(pid);
        return false;
      },
    });
    expect(seen).toEqual([1001]);
    expect(lock.replaced).toMatchObject({ runId: crashed, pid: 1001, host: 'box-a' });
    expect(readHolder(db)).toMatchObject({
      runId: next,
      pid: 1002,
      acquiredAt: '2026-03-01T02:00:05.000Z',
    });
  });

  it('lets a holder on another host with a fresh heartbeat block, without asking its pid', () => {
    const { db } = temp.open();
    const holder = runId('remote');
    acquireMirrorLock(db, { runId: holder, pid: 1001, host: 'box-b', now: () => T0 });
    mirrorErrorOf(
      () =>
        acquireMirrorLock(db, {
          runId: runId('local'),
          pid: 1002,
          host: 'box-a',
          now: () => T0 + 60_000,
          staleAfterMs: 120_000,
          // A pid on another host means nothing here: its death must not free the lock.
          isAlive: dead,
        }),
      'MIRROR_LOCKED',
    );
    expect(readHolder(db)?.runId).toBe(holder);
  });

  it('replaces a holder on another host whose heartbeat is stale', () => {
    const { db } = temp.open();
    const holder = runId('remote');
    acquireMirrorLock(db, { runId: holder, pid: 1001, host: 'box-b', now: () => T0 });
    const local = runId('local');
    const lock = acquireMirrorLock(db, {
      runId: local,
      pid: 1002,
      host: 'box-a',
      now: () => T0 + 120_001,
      staleAfterMs: 120_000,
      isAlive: alive,
    });
    expect(lock.replaced).toMatchObject({ runId: holder, host: 'box-b' });
    expect(readHolder(db)).toMatchObject({ runId: local, host: 'box-a' });
  });

  it('keeps a live holder on this host even when its heartbeat is exactly at the stale limit', () => {
    const { db } = temp.open();
    acquireMirrorLock(db, { runId: runId('holder'), pid: 1001, host: 'box-a', now: () => T0 });
    mirrorErrorOf(
      () =>
        acquireMirrorLock(db, {
          runId: runId('next'),
          pid: 1002,
          host: 'box-a',
          now: () => T0 + 120_000,
          staleAfterMs: 120_000,
          isAlive: alive,
        }),
      'MIRROR_LOCKED',
    );
  });

  it('treats its own pid on a lock this process never took as a previous incarnation', () => {
    const { db } = temp.open();
    const stranger = runId('restarted-container');
    db.prepare(
      `INSERT INTO run_lock (lock_id, run_id, pid, host, acquired_at, heartbeat_at)
       VALUES (1, ?, 77, 'box-a', ?, ?)`,
    ).run(stranger, new Date(T0).toISOString(), new Date(T0).toISOString());
    const lock = acquireMirrorLock(db, {
      runId: runId('now'),
      pid: 77,
      host: 'box-a',
      now: () => T0 + 1000,
      isAlive: alive,
    });
    expect(lock.replaced?.runId).toBe(stranger);
  });

  it('frees the lock on release so the next run takes it without replacing anyone', () => {
    const { db } = temp.open();
    const first = acquireMirrorLock(db, {
      runId: runId('first'),
      pid: 1001,
      host: 'box-a',
      now: () => T0,
    });
    first.release();
    expect(readHolder(db)).toBeNull();
    const second = acquireMirrorLock(db, {
      runId: runId('second'),
      pid: 1002,
      host: 'box-a',
      now: () => T0,
      isAlive: alive,
    });
    expect(second.replaced).toBeNull();
  });

  it('does not free a lock that another run has since taken over', () => {
    const { db } = temp.open();
    const old = acquireMirrorLock(db, {
      runId: runId('old'),
      pid: 1001,
      host: 'box-b',
      now: () => T0,
    });
    const taker = runId('taker');
    acquireMirrorLock(db, { runId: taker, pid: 1002, host: 'box-a', now: () => T0 + 600_000 });
    old.release();
    expect(old.heartbeat()).toBe(false);
    expect(readHolder(db)).toMatchObject({
      runId: taker,
      heartbeatAt: new Date(T0 + 600_000).toISOString(),
    });
  });

  it('moves heartbeat_at forward on heartbeat and keeps acquired_at', () => {
    const { db } = temp.open();
    let now = T0;
    const lock = acquireMirrorLock(db, {
      runId: runId('beating'),
      pid: 1001,
      host: 'box-a',
      now: () => now,
    });
    now = T0 + 30_000;
    expect(lock.heartbeat()).toBe(true);
    expect(readHolder(db)).toMatchObject({
      acquiredAt: '2026-03-01T02:00:00.000Z',
      heartbeatAt: '2026-03-01T02:00:30.000Z',
    });
  });

  it('keeps a holder whose heartbeat is fresh from being presumed stale', () => {
    const { db } = temp.open();
    let now = T0;
    const holder = runId('beating');
    const lock = acquireMirrorLock(db, { runId: holder, pid: 1001, host: 'box-b', now: () => now });
    now = T0 + 100_000;
    lock.heartbeat();
    mirrorErrorOf(
      () =>
        acquireMirrorLock(db, {
          runId: runId('waiting'),
          pid: 1002,
          host: 'box-a',
          now: () => T0 + 200_000,
          staleAfterMs: 120_000,
        }),
      'MIRROR_LOCKED',
    );
    expect(readHolder(db)?.runId).toBe(holder);
  });
});
