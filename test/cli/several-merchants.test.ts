import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { runCliProcess } from '../support/cli-process.js';
import { startTestSandbox } from '../support/test-sandbox.js';
import { type JobFixture, readCsv, startJobFixture } from './job-fixture.js';

const WORLD = { cards: 20, transactions: 100, days: 10, anomaliesPerCode: 0 } as const;

describe('cardsync run with several merchants in one configuration', () => {
  let f: JobFixture;
  /** The environment of a run that reads its merchants from a config file alone. */
  let bare: Record<string, string>;

  /** Write a config file naming `merchants` (each `{ name, key }`) of the fixture's sandbox. */
  async function configFile(
    file: string,
    merchants: readonly { name: string; key: string; baseUrl?: string; caFile?: string }[],
  ): Promise<string> {
    const path = join(f.dir, file);
    const entries = [];
    for (const { name, key, baseUrl, caFile } of merchants) {
      const keyFile = join(f.dir, `${name}.key`);
      await writeFile(keyFile, key, { mode: 0o600 });
      entries.push({
        name,
        baseUrl: baseUrl ?? f.t.sandbox.baseUrl,
        apiKeyFile: keyFile,
        caFile: caFile ?? f.t.sandbox.caFile,
      });
    }
    await writeFile(path, JSON.stringify({ merchants: entries }));
    return path;
  }

  beforeAll(async () => {
    f = await startJobFixture({ seed: 'several-merchants', merchants: 2, world: WORLD });
    bare = { ...f.env, CARDSYNC_BASE_URL: '', CARDSYNC_API_KEY: '', CARDSYNC_CA_FILE: '' };
  }, 60_000);
  afterAll(async () => f?.close());

  it("keeps a name's new merchant with no card yet apart from the merchant the name read before", async () => {
    // A new account (another upstream, no card yet) takes over the name `main` of a merchant
    // synced the night before.
    const fresh = await startTestSandbox({ seed: 'several-merchants-new', merchants: 1 });
    try {
      const [old] = f.t.sandbox.merchants;
      const before = await configFile('main-before.json', [{ name: 'main', key: old!.apiKey }]);
      const db = join(f.dir, 'data', 'renamed.sqlite');
      const env = { ...bare, CARDSYNC_DB: db };
      const night1 = await runCliProcess(['run', '--config', before], env);
      expect(night1.code, night1.stderr).toBe(0);
      const after = await configFile('main-after.json', [
        {
          name: 'main',
          key: fresh.sandbox.merchants[0]!.apiKey,
          baseUrl: fresh.sandbox.baseUrl,
          caFile: fresh.sandbox.caFile,
        },
      ]);
      const night2 = await runCliProcess(['run', '--config', after, '--json'], env);
      expect(night2.code, night2.stderr).toBe(0);
      const mirror = openMirror(db);
      try {
        const snapshots = mirror.db
          .prepare('SELECT merchant_id, count(*) AS n FROM merchant_balances GROUP BY 1 ORDER BY 1')
          .all();
        // The old merchant's balance history is its own night only; the new one waits under the
        // provisional id until its first card names it.
        expect(snapshots).toEqual([
          { merchant_id: old!.merchantId, n: 1 },
          { merchant_id: 'source:main', n: 1 },
        ]);
      } finally {
        await mirror.close();
      }
      const { reconcile } = JSON.parse(night2.stdout) as { reconcile: { reportDir: string } };
      const rows = readCsv(join(reconcile.reportDir, 'discrepancies.csv'));
      expect(rows.filter((r) => r.check === 'MERCHANT_BALANCE_MISMATCH')).toEqual([]);
    } finally {
      await fresh.close();
    }
  }, 60_000);
});
