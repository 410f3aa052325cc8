/**
 * A long randomized sync soak, run by `npm run soak` (not by `npm test`): two merchants of a
 * generated world that keeps moving, every fault of the fault lab at once (drift while paging
 * included), and rounds of `cardsync sync`: two killed (SIGKILL) at a random moment, one left to
 * finish (exit 0), one stopped by SIGTERM (exit 4, or 0 if it finished first), and so on, with the
 * service clock jumping ahead between rounds so late postings surface.
 * Then a last run under every fault but drift must exit 0 with the mirror equal to the service
 * id by id, and a run with no fault must find nothing left to write.
 *
 * SOAK_SEED picks the world (random by default, and printed, so that every soak explores a new
 * one); the kill moments are random each time. SOAK_ROUNDS (default 12), SOAK_FAULT_SHARE (the
 * share of calls each failing kind hits, default 0.01) and SOAK_MAX_RUN_MS (the longest a round
 * runs before its kill, default 15000) tune it.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultRule } from '../../src/sandbox/faults/fault-rule.js';
import { Database } from '../../src/sqlite-driver.js';
import type { SyncResult } from '../../src/sync/sync-result.js';
import { runCliProcess, startCliProcess } from '../support/cli-process.js';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

const SEED = process.env.SOAK_SEED ?? `soak-${randomBytes(4).toString('hex')}`;
const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 12);
const SHARE = Number(process.env.SOAK_FAULT_SHARE ?? 0.01);
const MAX_RUN_MS = Number(process.env.SOAK_MAX_RUN_MS ?? 15_000);

/** Every fault kind a reader meets, at once. */
const EVERY_FAULT = [
  { id: 'limit', kind: 'rate-limit', retryAfterSeconds: 1, probability: SHARE },
  { id: 'e500', kind: 'server-error', status: 500, probability: SHARE },
  { id: 'e502', kind: 'server-error', status: 502, probability: SHARE },
  { id: 'e503', kind: 'server-error', status: 503, probability: SHARE },
  { id: 'reset', kind: 'reset', probability: SHARE },
  { id: 'truncate', kind: 'truncate', probability: SHARE },
  { id: 'slow', kind: 'latency', ms: 5, jitterMs: 20, probability: 0.2 },
  { id: 'small', kind: 'page-size', max: 43 },
  { id: 'drift', kind: 'drift', insert: 2, progress: 2, probability: 3 * SHARE },
] as const satisfies readonly FaultRule[];

/** Exit codes a round may end with: killed (null), done, or stopped by its SIGTERM. */
const ROUND_EXITS = [null, 0, 4];

function say(line: string): void {
  process.stderr.write(`[soak ${SEED}] ${line}\n`);
}

describe(`sync soak (${SEED})`, () => {
  let w: SyncWorld;
  let config: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 2,
      currencies: ['USD', 'JPY'],
      seed: SEED,
      world: { cards: 1500, transactions: 40_000, days: 120, anomaliesPerCode: 1 },
      activityPerSecond: 150,
      faults: [...EVERY_FAULT],
    });
    const merchants = w.t.sandbox.merchants;
    config = join(w.dir, 'cardsync.json');
    await writeFile(
      config,
      JSON.stringify({
        merchants: merchants.map((_, i) => ({
          name: `m${i}`,
          baseUrl: w.t.sandbox.baseUrl,
          apiKeyEnv: `SOAK_KEY_${i}`,
          caFile: w.t.sandbox.caFile,
        })),
        sync: { concurrency: 8, maxPagesPerWindow: 4 },
      }),
    );
    env = Object.fromEntries(merchants.map((m, i) => [`SOAK_KEY_${i}`, m.apiKey]));
  });
  afterAll(async () => w?.close());

  it('ends complete and exact after crashes, every fault and a moving world', async () => {
    const db = join(w.dir, 'soak.sqlite');
    const sync = () => runCliProcess(['sync', '--config', config, '--db', db, '--json'], env);
    for (let round = 0; round < ROUNDS; round++) {
      const advanceMs = Math.floor(Math.random() * 20 * 60_000);
      if (round % 4 === 2) {
        // A whole run now and then, so the next one starts from a complete mirror.
        const started = Date.now();
        const whole = await sync();
        say(`round ${round}: a whole run, exit ${whole.code} after ${Date.now() - started} ms`);
        expect(whole.code, whole.stderr.slice(-3000)).toBe(0);
        await w.t.control.post('/_control/clock', { advanceMs });
        continue;
      }
      const child = startCliProcess(['sync', '--config', config, '--db', db], env);
      const runMs = 100 + Math.floor(Math.random() * MAX_RUN_MS);
      const signal = round % 4 === 3 ? 'SIGTERM' : 'SIGKILL';
      const timer = setTimeout(() => child.child.kill(signal), runMs);
      const code = await child.exited();
      clearTimeout(timer);
      say(`round ${round}: ${signal} after ${runMs} ms, exit ${code}`);
      expect(ROUND_EXITS, child.stderr().slice(-3000)).toContain(code);
      await w.t.control.post('/_control/clock', { advanceMs });
    }

    // The world stops; every late posting becomes visible.
    w.t.sandbox.movingWorld?.stop();
    await w.t.control.post('/_control/clock', { advanceMs: 30 * 60_000 });
    // Drift moves card balances after the card list was read: the last run meets every fault
    // but that one (the rounds met it).
    w.t.sandbox.faults.replace(EVERY_FAULT.filter((rule) => rule.kind !== 'drift'));
    const last = await sync();
    expect(last.code, last.stderr.slice(-3000)).toBe(0);
    expect(compareMirror(w.t.sandbox, db)).toEqual(NO_DIFFERENCES);

    w.t.sandbox.faults.replace([]);
    const quiet = await sync();
    expect(quiet.code, quiet.stderr.slice(-3000)).toBe(0);
    const result = JSON.parse(quiet.stdout) as SyncResult;
    for (const m of result.merchants) {
      expect([m.transactions.inserted, m.transactions.updated, m.transactions.quarantined]).toEqual(
        [0, 0, 0],
      );
      expect([m.cards.inserted, m.cards.updated, m.cards.quarantined]).toEqual([0, 0, 0]);
    }

    const mirror = new Database(db, { readonly: true });
    try {
      const outcomes = mirror
        .prepare('SELECT outcome, count(*) AS n FROM sync_runs GROUP BY outcome')
        .all() as { outcome: string; n: number }[];
      say(`runs: ${outcomes.map((o) => `${o.n} ${o.outcome}`).join(', ')}`);
      expect(outcomes.map((o) => o.outcome)).not.toContain('running');
      expect(mirror.prepare('SELECT count(*) AS n FROM run_lock').get()).toEqual({ n: 0 });
    } finally {
      mirror.close();
    }
  });
});
