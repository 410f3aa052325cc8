import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess } from '../support/cli-process.js';
import { type JobFixture, messageLines, startJobFixture } from './job-fixture.js';

describe('a night on which one merchant’s upstream failed and another’s key was refused', () => {
  let f: JobFixture;
  let config: string;
  /** The configured environment without the single-merchant variables, so the file is read. */
  const bare = () => ({
    ...f.env,
    CARDSYNC_BASE_URL: '',
    CARDSYNC_API_KEY: '',
    CARDSYNC_CA_FILE: '',
    CARDSYNC_MERCHANT_ID: '',
  });

  beforeAll(async () => {
    f = await startJobFixture({
      seed: 'refused-key-line',
      merchants: 2,
      world: { cards: 10, transactions: 60, days: 5, anomaliesPerCode: 0 },
    });
    // `eu` holds its merchant's key; `us` one the upstream refuses.
    const [eu, us] = f.t.sandbox.merchants;
    const keyFile = (name: string) => join(f.dir, `${name}.key`);
    await writeFile(keyFile('eu'), eu!.apiKey);
    await writeFile(keyFile('us'), `${us!.apiKey}-revoked`);
    config = join(f.dir, 'cardsync.json');
    await writeFile(
      config,
      JSON.stringify({
        merchants: ['eu', 'us'].map((name) => ({
          name,
          baseUrl: f.t.sandbox.baseUrl,
          apiKeyFile: keyFile(name),
          caFile: f.t.sandbox.caFile,
        })),
      }),
    );
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
