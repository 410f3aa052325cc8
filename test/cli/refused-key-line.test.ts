import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { configFileEnv, runCliProcess } from '../support/cli-process.js';
import { type JobFixture, messageLines, readCsv, startJobFixture } from './job-fixture.js';

/**
 * A config file `name` in `f`'s folder naming merchants `eu` and `us` of its sandbox, each with
 * the key `keys` gives it (written to a file of its own) and the extra fields `extra` gives it.
 */
async function twoMerchants(
  f: JobFixture,
  name: string,
  keys: { eu: string; us: string },
  extra: { eu?: object; us?: object } = {},
): Promise<string> {
  const keyFile = (merchant: 'eu' | 'us') => join(f.dir, `${name}-${merchant}.key`);
  await writeFile(keyFile('eu'), keys.eu);
  await writeFile(keyFile('us'), keys.us);
  const config = join(f.dir, name);
  await writeFile(
    config,
    JSON.stringify({
      merchants: (['eu', 'us'] as const).map((merchant) => ({
        name: merchant,
        baseUrl: f.t.sandbox.baseUrl,
        apiKeyFile: keyFile(merchant),
        caFile: f.t.sandbox.caFile,
        ...extra[merchant],
      })),
    }),
  );
  return config;
}

describe('a night on which one merchant’s upstream failed and another’s key was refused', () => {
  let f: JobFixture;
  let config: string;
  const bare = () => configFileEnv(f.env);

  beforeAll(async () => {
    f = await startJobFixture({
      seed: 'refused-key-line',
      merchants: 2,
      world: { cards: 10, transactions: 60, days: 5, anomaliesPerCode: 0 },
    });
    // `eu` holds its merchant's key; `us` one the upstream refuses.
    const [eu, us] = f.t.sandbox.merchants;
    config = await twoMerchants(f, 'cardsync.json', {
      eu: eu!.apiKey,
      us: `${us!.apiKey}-revoked`,
    });
    f.t.sandbox.faults.replace([
      {
        kind: 'server-error',
        status: 503,
        match: { operation: 'getMerchantBalance', merchantId: eu!.merchantId },
      },
    ]);
  }, 60_000);
  afterAll(async () => f?.close());

  for (const command of ['run', 'sync'])
    it(`\`cardsync ${command}\` exits 3 naming the key that was refused, not the other merchant’s`, async () => {
      const result = await runCliProcess([command, '--config', config], bare());
      expect(result.code, result.stderr).toBe(3);
      const [line] = messageLines(result.stderr);
      expect(line).toMatch(
        /^cardsync: the upstream refused the key of us \(401\), read from the file merchants\[1\]\.apiKeyFile names/,
      );
    }, 60_000);
});

describe('a merchant whose configured merchantId is not the one its key reads', () => {
  let f: JobFixture;
  let config: string;
  const bare = () => configFileEnv(f.env);

  beforeAll(async () => {
    f = await startJobFixture({
      seed: 'merchant-id-mismatch',
      merchants: 2,
      world: { cards: 10, transactions: 60, days: 5, anomaliesPerCode: 0 },
    });
    // `us` holds its own key, but the merchantId of `eu` (an entry copied, one value missed).
    const [eu, us] = f.t.sandbox.merchants;
    config = await twoMerchants(
      f,
      'mismatch.json',
      { eu: eu!.apiKey, us: us!.apiKey },
      { us: { merchantId: eu!.merchantId } },
    );
  }, 60_000);
  afterAll(async () => f?.close());

  it('`cardsync sync` exits 3 naming both ids, and writes nothing of that key’s merchant under the configured id', async () => {
    const [eu, us] = f.t.sandbox.merchants;
    const result = await runCliProcess(['sync', '--config', config], bare());
    expect(result.code, result.stderr).toBe(3);
    const [line] = messageLines(result.stderr);
    expect(line).toBe(
      `cardsync: the key of us, read from the file merchants[1].apiKeyFile names, reads merchant ${us!.merchantId}, not the merchantId the configuration gives it (${eu!.merchantId})`,
    );
    const mirror = openMirror(f.db);
    try {
      // Before: every card of `us` quarantined as another merchant's, its transactions kept
      // under the id of `eu`, cards and all unknown to it.
      const count = (sql: string) => mirror.db.prepare(sql).pluck().get();
      expect(count('SELECT count(*) FROM quarantine')).toBe(0);
      expect(
        count(
          'SELECT count(*) FROM transactions t WHERE NOT EXISTS (SELECT 1 FROM cards c WHERE c.card_id = t.card_id)',
        ),
      ).toBe(0);
      expect(count('SELECT count(*) FROM cards')).toBeGreaterThan(0);
    } finally {
      await mirror.close();
    }
  }, 60_000);

  it('`cardsync run` exits 3 likewise, and its summary.csv says whose data was not refreshed', async () => {
    const [eu, us] = f.t.sandbox.merchants;
    const result = await runCliProcess(['run', '--config', config], bare());
    expect(result.code, result.stderr).toBe(3);
    expect(messageLines(result.stderr)[0]).toMatch(
      `cardsync: the key of us, read from the file merchants[1].apiKeyFile names, reads merchant ${us!.merchantId}, not the merchantId the configuration gives it (${eu!.merchantId}); the reconciliation ran`,
    );
    const summary = readCsv(join(f.reportsDir, 'latest', 'summary.csv'));
    expect(summary.find((r) => r.measure === 'data_complete')).toMatchObject({
      reason:
        'the key of us reads another merchant than its configured merchantId; its data was not refreshed',
      value: 'false',
    });
  }, 60_000);
});
