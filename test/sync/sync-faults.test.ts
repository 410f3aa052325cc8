import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultRule } from '../../src/sandbox/faults/fault-rule.js';
import { Database } from '../../src/sqlite-driver.js';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

const WORLD = { cards: 150, transactions: 2500, days: 40, anomaliesPerCode: 0 } as const;

/** One rule per fault kind the upstream can throw at a reader. */
const FAULTS: Record<string, FaultRule[]> = {
  'rate limits with Retry-After': [{ kind: 'rate-limit', retryAfterSeconds: 1, probability: 0.2 }],
  'HTTP 500': [{ kind: 'server-error', status: 500, probability: 0.2 }],
  'HTTP 502': [{ kind: 'server-error', status: 502, probability: 0.2 }],
  'HTTP 503': [{ kind: 'server-error', status: 503, probability: 0.2 }],
  'connection resets': [{ kind: 'reset', probability: 0.2 }],
  'truncated bodies': [{ kind: 'truncate', probability: 0.2 }],
  latency: [{ kind: 'latency', ms: 15, jitterMs: 30, probability: 0.5 }],
  'a page size below 100': [{ kind: 'page-size', max: 37 }],
};

/** Every kind at once, drift included. */
const EVERYTHING: FaultRule[] = [
  { id: 'limit', kind: 'rate-limit', retryAfterSeconds: 1, probability: 0.05 },
  { id: 'e500', kind: 'server-error', status: 500, probability: 0.04 },
  { id: 'e502', kind: 'server-error', status: 502, probability: 0.04 },
  { id: 'e503', kind: 'server-error', status: 503, probability: 0.04 },
  { id: 'reset', kind: 'reset', probability: 0.04 },
  { id: 'truncate', kind: 'truncate', probability: 0.04 },
  { id: 'slow', kind: 'latency', ms: 5, jitterMs: 20, probability: 0.2 },
  { id: 'small', kind: 'page-size', max: 41 },
  // Drift while paging: on the reads of pages, not on the closing audit's `limit=1` counts. A
  // change made while the audit counts is one it may not see (its other counts were answered
  // before); the next run's audit finds it, like any change between runs (sync-moving-world).
  {
    id: 'drift',
    kind: 'drift',
    insert: 2,
    progress: 2,
    probability: 0.05,
    times: 40,
    match: { minLimit: 2 },
  },
];

const RETRY = { maxAttempts: 14, baseDelayMs: 2, maxDelayMs: 20, retryAfterCapMs: 20 };

function duplicateIds(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    const row = db
      .prepare('SELECT count(*) - count(DISTINCT transaction_id) AS d FROM transactions')
      .get() as { d: number };
    return row.d;
  } finally {
    db.close();
  }
}

describe('a sync under the fault lab', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({ merchants: 1, seed: 'sync-faults', world: WORLD });
  });
  afterAll(async () => w.close());

  for (const [name, rules] of Object.entries(FAULTS)) {
    it(`is complete and exact under ${name}`, async () => {
      w.t.sandbox.faults.replace(rules);
      try {
        const file = `${w.dir}/${name.replace(/\W+/g, '-')}.sqlite`;
        const result = await w.sync({ mirrorFile: file, client: { retry: RETRY } });
        expect(result.outcome).toBe('done');
        for (const rule of w.t.sandbox.faults.list()) expect(rule.fired).toBeGreaterThan(0);
        expect(compareMirror(w.t.sandbox, file)).toEqual(NO_DIFFERENCES);
        expect(duplicateIds(file)).toBe(0);
      } finally {
        w.t.sandbox.faults.replace([]);
      }
    });
  }

  it('is complete and exact under every fault at once, drift while paging included', async () => {
    w.t.sandbox.faults.replace(EVERYTHING);
    const file = `${w.dir}/everything.sqlite`;
    try {
      const result = await w.sync({ mirrorFile: file, client: { retry: RETRY } });
      expect(result.outcome).toBe('done');
      for (const rule of w.t.sandbox.faults.list()) expect(rule.fired, rule.id).toBeGreaterThan(0);
    } finally {
      w.t.sandbox.faults.replace([]);
    }
    // Drift inserted purchases and moved statuses while the sync read: the transactions must
    // all be there exactly; card balances it moved after their snapshot are caught next run.
    const after = compareMirror(w.t.sandbox, file);
    expect({ ...after, cardMismatches: [] }).toEqual(NO_DIFFERENCES);
    expect(duplicateIds(file)).toBe(0);
    const drifted = new Database(file, { readonly: true });
    try {
      const planted = drifted
        .prepare("SELECT count(*) AS n FROM transactions WHERE merchant_name = 'Drift Market'")
        .get() as { n: number };
      expect(planted.n).toBeGreaterThan(0);
    } finally {
      drifted.close();
    }
    const quiet = await w.sync({ mirrorFile: file });
    expect(quiet.outcome).toBe('done');
    expect(compareMirror(w.t.sandbox, file)).toEqual(NO_DIFFERENCES);
  });
});
