import { describe, expect, it } from 'vitest';
import { RunStore, type WindowRecord } from '../../src/mirror/run-store.js';
import { useTempMirrors } from './mirror-fixtures.js';

const temp = useTempMirrors();

function setup() {
  const mirror = temp.open();
  const store = new RunStore(mirror.db);
  const run = (runId: string) =>
    mirror.db.prepare('SELECT * FROM sync_runs WHERE run_id = ?').get(runId) as Record<
      string,
      unknown
    >;
  const start = (runId: string, startedAt = '2026-02-01T02:00:00.000Z') =>
    store.start({ runId, command: 'sync', startedAt, pid: 4242, host: 'box-a' });
  return { db: mirror.db, store, run, start };
}

describe('RunStore', () => {
  it('records a started run as running with its command, pid and host', () => {
    const { run, start } = setup();
    start('run-1');
    expect(run('run-1')).toEqual({
      run_id: 'run-1',
      command: 'sync',
      started_at: '2026-02-01T02:00:00.000Z',
      finished_at: null,
      outcome: 'running',
      exit_code: null,
      cutoff: null,
      pid: 4242,
      host: 'box-a',
      summary: null,
      error: null,
    });
  });

  it('marks crashed only the other runs still running, not the current nor finished ones', () => {
    const { store, run, start } = setup();
    start('dead-1');
    start('dead-2');
    start('finished');
    store.finish({
      runId: 'finished',
      finishedAt: '2026-02-01T03:00:00.000Z',
      outcome: 'done',
      exitCode: 0,
      summary: {},
    });
    start('current');
    expect(store.markCrashed('current', '2026-02-02T02:00:00.000Z')).toBe(2);
    expect(run('dead-1')).toMatchObject({
      outcome: 'crashed',
      finished_at: '2026-02-02T02:00:00.000Z',
    });
    expect(run('dead-2')).toMatchObject({ outcome: 'crashed' });
    expect(run('finished')).toMatchObject({
      outcome: 'done',
      finished_at: '2026-02-01T03:00:00.000Z',
    });
    expect(run('current')).toMatchObject({ outcome: 'running', finished_at: null });
    expect(store.markCrashed('current', '2026-02-02T02:00:01.000Z')).toBe(0);
  });

  it('records the cutoff, then the outcome, exit code, JSON summary and error at the finish', () => {
    const { store, run, start } = setup();
    start('run-1');
    store.setCutoff('run-1', '2026-02-01T01:55:00.000Z');
    const summary = { 'm-1': { transactions: { inserted: 3 } } };
    store.finish({
      runId: 'run-1',
      finishedAt: '2026-02-01T02:10:00.000Z',
      outcome: 'incomplete',
      exitCode: 4,
      summary,
      error: 'upstream unavailable',
    });
    const row = run('run-1');
    expect(row).toMatchObject({
      cutoff: '2026-02-01T01:55:00.000Z',
      finished_at: '2026-02-01T02:10:00.000Z',
      outcome: 'incomplete',
      exit_code: 4,
      error: 'upstream unavailable',
    });
    expect(JSON.parse(row.summary as string)).toEqual(summary);
  });

  it('stores a NULL error when a run finishes without one', () => {
    const { store, run, start } = setup();
    start('run-1');
    store.finish({
      runId: 'run-1',
      finishedAt: '2026-02-01T02:10:00.000Z',
      outcome: 'done',
      exitCode: 0,
      summary: null,
    });
    expect(run('run-1')).toMatchObject({ error: null, summary: 'null', exit_code: 0 });
  });

  it('adds one sync_windows row per unit of work, nullable fields kept NULL', () => {
    const { db, store, start } = setup();
    start('run-1');
    const window: WindowRecord = {
      runId: 'run-1',
      merchantId: 'm-1',
      kind: 'history',
      startAt: '2026-01-01T00:00:00.000Z',
      endAt: '2026-01-01T23:59:59.999Z',
      filter: JSON.stringify({ status: 'PENDING' }),
      expected: 120,
      fetched: 120,
      upserted: 118,
      attempts: 2,
      durationMs: 345,
      outcome: 'done',
      finishedAt: '2026-02-01T02:01:00.000Z',
    };
    store.addWindow(window);
    store.addWindow({
      ...window,
      kind: 'cards',
      startAt: null,
      endAt: null,
      filter: null,
      expected: null,
      outcome: 'skipped',
    });
    expect(db.prepare('SELECT * FROM sync_windows ORDER BY rowid').all()).toEqual([
      {
        run_id: 'run-1',
        merchant_id: 'm-1',
        kind: 'history',
        start_at: '2026-01-01T00:00:00.000Z',
        end_at: '2026-01-01T23:59:59.999Z',
        filter: '{"status":"PENDING"}',
        expected: 120,
        fetched: 120,
        upserted: 118,
        attempts: 2,
        duration_ms: 345,
        outcome: 'done',
        finished_at: '2026-02-01T02:01:00.000Z',
      },
      expect.objectContaining({
        kind: 'cards',
        start_at: null,
        end_at: null,
        filter: null,
        expected: null,
        outcome: 'skipped',
      }),
    ]);
  });
});
