import { describe, expect, it } from 'vitest';
import { ProgressStore } from '../../src/mirror/progress-store.js';
import { useTempMirrors } from './mirror-fixtures.js';

const temp = useTempMirrors();

describe('ProgressStore', () => {
  it('reads back the replaced ranges in order, to the millisecond', () => {
    const mirror = temp.open();
    const store = new ProgressStore(mirror.db);
    const ranges = [
      {
        start: Date.parse('2026-01-05T00:00:00.001Z'),
        end: Date.parse('2026-01-06T23:59:59.999Z'),
      },
      {
        start: Date.parse('2025-12-01T00:00:00.000Z'),
        end: Date.parse('2025-12-31T12:34:56.789Z'),
      },
    ];
    store.replace('m-1', ranges);
    expect(store.read('m-1')).toEqual([ranges[1], ranges[0]]);
  });

  it('stores the ranges as ISO 8601 UTC text with milliseconds for analysts', () => {
    const mirror = temp.open();
    const store = new ProgressStore(mirror.db);
    store.replace('m-1', [{ start: Date.UTC(2026, 0, 5, 1, 2, 3, 4), end: Date.UTC(2026, 0, 6) }]);
    expect(mirror.db.prepare('SELECT * FROM sync_progress').all()).toEqual([
      {
        merchant_id: 'm-1',
        start_at: '2026-01-05T01:02:03.004Z',
        end_at: '2026-01-06T00:00:00.000Z',
      },
    ]);
  });

  it('replaces only the given merchant ranges, dropping the ones no longer listed', () => {
    const mirror = temp.open();
    const store = new ProgressStore(mirror.db);
    store.replace('m-1', [
      { start: 1_000, end: 2_000 },
      { start: 5_000, end: 6_000 },
    ]);
    store.replace('m-2', [{ start: 1_000, end: 9_000 }]);
    store.replace('m-1', [{ start: 1_000, end: 6_000 }]);
    expect(store.read('m-1')).toEqual([{ start: 1_000, end: 6_000 }]);
    expect(store.read('m-2')).toEqual([{ start: 1_000, end: 9_000 }]);
    store.replace('m-1', []);
    expect(store.read('m-1')).toEqual([]);
  });
});
