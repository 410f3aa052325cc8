import { describe, expect, it } from 'vitest';
import { LastReads } from '../../src/sync/last-reads.js';
import { isoTime } from '../../src/sync/time-range.js';
import { transaction } from '../mirror/mirror-fixtures.js';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const LEFT = { start: T0, end: T0 + 1000 };
const RIGHT = { start: T0 + 1000, end: T0 + 2000 };

/** A row created `ms` after T0, with `status`. */
const row = (ms: number, status: 'PENDING' | 'COMPLETED') =>
  transaction({ transactionId: `txn_${ms}`, createdAt: isoTime(T0 + ms), status });

describe('LastReads', () => {
  // Windows sharing the boundary T0 + 1000 both read the rows from 999 to 1001 ms (their
  // queries widen by 1 ms): whichever reads such a row last holds its latest status.
  it.each([999, 1000, 1001])(
    'gives the version read last of a row %i ms in, on the boundary two windows share',
    (ms) => {
      const reads = new LastReads();
      reads.note(LEFT, false, [row(ms, 'PENDING')]);
      reads.note(RIGHT, false, [row(ms, 'COMPLETED')]);
      expect(reads.latest(row(ms, 'PENDING')).status).toBe('COMPLETED');

      const back = new LastReads();
      back.note(RIGHT, false, [row(ms, 'PENDING')]);
      back.note(LEFT, false, [row(ms, 'COMPLETED')]);
      expect(back.latest(row(ms, 'PENDING')).status).toBe('COMPLETED');
    },
  );

  it('keeps no row away from the edges of a window, except in an audit window, kept whole', () => {
    const reads = new LastReads();
    reads.note(LEFT, false, [row(500, 'COMPLETED')]);
    expect(reads.latest(row(500, 'PENDING')).status).toBe('PENDING');
    reads.note(LEFT, true, [row(500, 'COMPLETED')]);
    expect(reads.latest(row(500, 'PENDING')).status).toBe('COMPLETED');
  });
});
