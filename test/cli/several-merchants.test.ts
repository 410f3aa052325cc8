import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { configFileEnv, runCliProcess, sandboxCliEnv } from '../support/cli-process.js';
import { MerchantSession } from '../support/merchant-session.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import { type JobFixture, messageLines, readCsv, startJobFixture } from './job-fixture.js';

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
    bare = configFileEnv(f.env);
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

/** A config file in `dir` whose one merchant, named `main`, reads `merchant` of `t`. */
async function mainConfig(
  t: TestSandbox,
  dir: string,
  merchant: TestSandbox['sandbox']['merchants'][number] | undefined,
): Promise<string> {
  const keyFile = join(dir, `${merchant!.merchantId}.key`);
  await writeFile(keyFile, merchant!.apiKey, { mode: 0o600 });
  const file = join(dir, `${merchant!.merchantId}.json`);
  const entry = {
    name: 'main',
    baseUrl: t.sandbox.baseUrl,
    apiKeyFile: keyFile,
    caFile: t.sandbox.caFile,
  };
  await writeFile(file, JSON.stringify({ merchants: [entry] }));
  return file;
}

describe('a configured name given to another merchant of the same upstream', () => {
  let t: TestSandbox;
  let dir: string;
  beforeAll(async () => {
    t = await startTestSandbox({ seed: 'several-merchants-reused-name', merchants: 2 });
    dir = await mkdtemp(join(tmpdir(), 'cardsync-merchants-'));
    // The first merchant has a card; the second, a new account, has none yet.
    await new MerchantSession(t, 0).activeCard();
  });
  afterAll(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("journals the new merchant's order under its own id, never the id the name learnt", async () => {
    const db = join(dir, 'mirror.sqlite');
    const env = configFileEnv(sandboxCliEnv(t, db));
    const config = (merchant: number) => mainConfig(t, dir, t.sandbox.merchants[merchant]);
    const synced = await runCliProcess(['sync', '--config', await config(0)], env);
    expect(synced.code, synced.stderr).toBe(0);
    // The name `main` now reads the second merchant, of the same upstream.
    const [offering] = await new MerchantSession(t, 1).offerings();
    const issued = await runCliProcess(
      [
        'cards',
        'issue',
        '--config',
        await config(1),
        '--offering',
        offering!.id,
        '--amount',
        offering!.minLoadAmount,
      ],
      env,
    );
    const mirror = openMirror(db);
    try {
      const journaled = mirror.db
        .prepare("SELECT DISTINCT merchant_id FROM orders WHERE kind = 'ISSUE'")
        .pluck()
        .all();
      expect(journaled).not.toContain(t.sandbox.merchants[0]!.merchantId);
    } finally {
      await mirror.close();
    }
    // With no card to name it and no merchantId configured, its id is asked for.
    expect(issued.code, issued.stderr).toBe(2);
    expect(messageLines(issued.stderr)).toEqual([
      expect.stringMatching(/^cardsync: CARDSYNC_MERCHANT_ID: expected the id of merchant main/),
    ]);
  }, 60_000);
});

describe('a configured name that read one merchant and now reads another, both with cards', () => {
  let t: TestSandbox;
  let dir: string;
  beforeAll(async () => {
    t = await startTestSandbox({ seed: 'several-merchants-replaced', merchants: 2 });
    dir = await mkdtemp(join(tmpdir(), 'cardsync-merchants-'));
    await new MerchantSession(t, 0).activeCard();
    await new MerchantSession(t, 1).activeCard();
  });
  afterAll(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The two merchants, the one read first sorting first, whichever way their ids sort. */
  const merchants = () =>
    [...t.sandbox.merchants].sort((a, b) => (a.merchantId < b.merchantId ? -1 : 1));
  const envOf = (db: string) => configFileEnv(sandboxCliEnv(t, db));
  const config = (merchant: TestSandbox['sandbox']['merchants'][number] | undefined) =>
    mainConfig(t, dir, merchant);

  it('imports a journal into the books of the merchant the name reads now, not the one it read before', async () => {
    const db = join(dir, 'mirror.sqlite');
    const env = envOf(db);
    const [before, now] = merchants();
    for (const merchant of [before, now]) {
      const synced = await runCliProcess(['sync', '--config', await config(merchant)], env);
      expect(synced.code, synced.stderr).toBe(0);
    }
    const journal = join(dir, 'journal.csv');
    await writeFile(
      journal,
      'merchantOrderNo,kind,cardId,offeringId,amount,currency,submittedAt,orderNo\n' +
        `topup-1,TOPUP,,,10.00,USD,${new Date().toISOString()},\n`,
    );
    const imported = await runCliProcess(
      ['orders', 'import', journal, '--config', await config(now), '--json'],
      env,
    );
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ merchantId: now!.merchantId });
  }, 60_000);

  it('journals an order under the merchant whose card the key lists, not the one the name read before', async () => {
    const db = join(dir, 'orders.sqlite');
    const env = envOf(db);
    const [before, now] = merchants();
    const synced = await runCliProcess(['sync', '--config', await config(before)], env);
    expect(synced.code, synced.stderr).toBe(0);
    const [offering] = await new MerchantSession(t, t.sandbox.merchants.indexOf(now!)).offerings();
    const issued = await runCliProcess(
      [
        'cards',
        'issue',
        '--config',
        await config(now),
        '--offering',
        offering!.id,
        '--amount',
        offering!.minLoadAmount,
      ],
      env,
    );
    expect(issued.code, issued.stderr).toBe(0);
    const mirror = openMirror(db);
    try {
      expect(
        mirror.db.prepare("SELECT merchant_id FROM orders WHERE kind = 'ISSUE'").pluck().all(),
      ).toEqual([now!.merchantId]);
    } finally {
      await mirror.close();
    }
  }, 60_000);
});
