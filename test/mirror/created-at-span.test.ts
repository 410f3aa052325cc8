import { describe, expect, it } from 'vitest';
import { createdAtSpan, spanReadLimit } from '../../src/mirror/created-at-span.js';

describe('createdAtSpan', () => {
  it('gives the first and last createdAt of a batch in any order', () => {
    const batch = [
      { createdAt: '2026-03-02T00:00:00.000Z' },
      { createdAt: '2026-03-01T23:59:59.999Z' },
      { createdAt: '2026-03-04T12:00:00.000Z' },
      { createdAt: '2026-03-03T00:00:00.000Z' },
    ];
    expect(createdAtSpan(batch)).toEqual(['2026-03-01T23:59:59.999Z', '2026-03-04T12:00:00.000Z']);
  });

  it('gives one instant for a batch of one', () => {
    expect(createdAtSpan([{ createdAt: '2026-03-02T00:00:00.000Z' }])).toEqual([
      '2026-03-02T00:00:00.000Z',
      '2026-03-02T00:00:00.000Z',
    ]);
  });
});

describe('spanReadLimit', () => {
  it('reads back twice the batch plus a hundred rows', () => {
    expect(spanReadLimit(1)).toBe(102);
    expect(spanReadLimit(1000)).toBe(2100);
  });
});
