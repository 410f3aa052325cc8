import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/sqlite-driver.js';
import { runCliProcess } from '../support/cli-process.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

const HEADER = 'merchantOrderNo,kind,cardId,offeringId,amount,currency,submittedAt,orderNo';

let t: TestSandbox;
let dir: string;
let usd: { merchantId: string; journalFile: string };
let jpy: { merchantId: string; journalFile: string };
let mirrorNo = 0;

/** Environment with no upstream and a fresh mirror of its own. */
function freshEnv(): { env: Record<string, string>; db: string } {
  mirrorNo += 1;
  const db = join(dir, `mirror-${mirrorNo}.sqlite`);
  return {
    db,
    env: {
      CARDSYNC_DB: db,
      CARDSYNC_BASE_URL: '',
      CARDSYNC_API_KEY: '',
      CARDSYNC_API_KEY_FILE: '',
      CARDSYNC_CA_FILE: '',
      CARDSYNC_MERCHANT_ID: '',
    },
  };
}

function orderCount(db: string, merchantId?: string): number {
  const mirror = new Database(db, { readonly: true });
  try {
    const row = (
      merchantId === undefined
        ? mirror.prepare('SELECT count(*) AS n FROM orders').get()
        : mirror.prepare('SELECT count(*) AS n FROM orders WHERE merchant_id = ?').get(merchantId)
    ) as { n: number };
    return row.n;
  } finally {
    mirror.close();
  }
}

/** Data rows of a CSV file (records, not lines). */
function dataRows(file: string): number {
  return readFileSync(file, 'utf8').trim().split('\n').length - 1;
}

beforeAll(async () => {
  t = await startTestSandbox({
    merchants: 2,
    currencies: ['USD', 'JPY'],
    seed: 'orders-cli',
    world: { cards: 24, transactions: 150, days: 10, anomaliesPerCode: 1 },
  });
  dir = await mkdtemp(join(tmpdir(), 'cardsync-orders-cli-'));
  const [first, second] = t.sandbox.merchants;
  usd = { merchantId: first!.merchantId, journalFile: first!.journalFile! };
  jpy = { merchantId: second!.merchantId, journalFile: second!.journalFile! };
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

describe('cardsync orders import', () => {
  it("imports the sandbox's USD and JPY journals, then changes nothing on a second import", async () => {
    const { env, db } = freshEnv();
    for (const merchant of [usd, jpy]) {
      const result = await runCliProcess(
        ['orders', 'import', merchant.journalFile, '--merchant', merchant.merchantId, '--json'],
        env,
      );
      expect(result.code, result.stderr).toBe(0);
      const rows = dataRows(merchant.journalFile);
      expect(JSON.parse(result.stdout)).toMatchObject({
        merchantId: merchant.merchantId,
        rows,
        inserted: rows,
        unchanged: 0,
      });
      expect(orderCount(db, merchant.merchantId)).toBe(rows);
    }
    const again = await runCliProcess(
      ['orders', 'import', jpy.journalFile, '--merchant', jpy.merchantId],
      env,
    );
    expect(again.code, again.stderr).toBe(0);
    const rows = dataRows(jpy.journalFile);
    expect(again.stdout).toBe(
      `imported ${jpy.journalFile} for merchant ${jpy.merchantId}: ${rows} rows, 0 new, ${rows} already journaled\n`,
    );
  });

  it('gives a row imported without its orderNo the one a later export shows, and says so', async () => {
    const { env } = freshEnv();
    const [header = '', ...lines] = readFileSync(usd.journalFile, 'utf8').trimEnd().split('\n');
    const linked = lines.findIndex((line) => !line.endsWith(','));
    const early = lines.map((line, i) => (i === linked ? line.replace(/[^,]*$/, '') : line));
    const earlyFile = join(dir, 'books-early.csv');
    await writeFile(earlyFile, `${[header, ...early].join('\n')}\n`);
    const args = ['--merchant', usd.merchantId];
    expect((await runCliProcess(['orders', 'import', earlyFile, ...args], env)).code).toBe(0);

    const later = await runCliProcess(['orders', 'import', usd.journalFile, ...args], env);
    expect(later.code, later.stderr).toBe(0);
    expect(later.stdout).toBe(
      `imported ${usd.journalFile} for merchant ${usd.merchantId}: ${lines.length} rows, 0 new, 1 given their orderNo, ${lines.length - 1} already journaled\n`,
    );
  });

  it('refuses a bad file with every offending line on stderr, exit 2, nothing written', async () => {
    const { env, db } = freshEnv();
    const file = join(dir, 'bad.csv');
    await writeFile(
      file,
      [
        HEADER,
        'ok-1,DEPOSIT,card_1,,1.00,USD,2026-11-20T10:00:00Z,ord_1',
        'bad-1,DEPOSTI,card_1,,1.00,USD,2026-11-20T10:00:00Z,',
        'ok-2,CANCEL,card_1,,,USD,2026-11-20T10:00:00Z,',
        'bad-2,FREEZE,card_1,,5.00,USD,yesterday,',
        '',
      ].join('\r\n'),
    );
    const result = await runCliProcess(
      ['orders', 'import', file, '--merchant', usd.merchantId],
      env,
    );
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n').filter(Boolean)).toEqual([
      '  line 3: kind: expected one of ISSUE, DEPOSIT, WITHDRAW, FREEZE, UNFREEZE, CANCEL, TOPUP, got "DEPOSTI"',
      '  line 5: amount: expected empty for FREEZE, got "5.00"',
      '  line 5: submittedAt: expected an ISO 8601 date-time with a zone (2026-11-21T02:00:00.000Z), got "yesterday"',
      'cardsync: refused bad.csv: 2 offending lines; nothing was imported',
    ]);
    // The mirror did not exist: none is left behind, nor the file the import was staged in.
    expect(readdirSync(dir).filter((name) => name.includes(basename(db)))).toEqual([]);
    const json = await runCliProcess(
      ['orders', 'import', file, '--merchant', usd.merchantId, '--json'],
      env,
    );
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({
      refused: true,
      code: 'IMPORT_REFUSED',
      issues: [
        { line: 3, field: 'kind' },
        { line: 5, field: 'amount' },
        { line: 5, field: 'submittedAt' },
      ],
    });
    expect(existsSync(db)).toBe(false);
    // A file that imports creates the mirror, and nothing beside it.
    await writeFile(
      file,
      [HEADER, 'ok-3,DEPOSIT,card_1,,1.00,USD,2026-11-20T10:00:00Z,ord_3', ''].join('\r\n'),
    );
    const good = await runCliProcess(['orders', 'import', file, '--merchant', usd.merchantId], env);
    expect(good.code).toBe(0);
    expect(readdirSync(dir).filter((name) => name.includes(basename(db)))).toEqual([basename(db)]);
    expect(orderCount(db)).toBe(1);
  });

  it('exits 2 naming the file when it cannot be read, before the mirror or its folder is created', async () => {
    const { env } = freshEnv();
    const db = join(dir, 'not-yet', 'mirror.sqlite');
    for (const file of [join(dir, 'missing.csv'), dir]) {
      const result = await runCliProcess(
        ['orders', 'import', file, '--merchant', 'mch_1', '--db', db],
        env,
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/cannot read .* \((ENOENT|EISDIR)\)/);
    }
    expect(existsSync(join(dir, 'not-yet'))).toBe(false);
  });

  it('leaves no folder made for the mirror behind when it refuses a file it could read', async () => {
    const { env } = freshEnv();
    const db = join(dir, 'refused-into', 'deeper', 'mirror.sqlite');
    const file = join(dir, 'header-only-wrong.csv');
    await writeFile(file, 'not,a,journal\r\n');
    const result = await runCliProcess(
      ['orders', 'import', file, '--merchant', 'mch_1', '--db', db],
      env,
    );
    expect(result.code, result.stderr).toBe(2);
    expect(existsSync(join(dir, 'refused-into'))).toBe(false);
  });
});

describe('cardsync orders import without --merchant', () => {
  it('exits 2 when neither the configuration nor the mirror names a merchant, creating nothing', async () => {
    const { env, db } = freshEnv();
    const result = await runCliProcess(['orders', 'import', usd.journalFile], env);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'cardsync: --merchant: expected the merchant id whose books the file holds; neither the configuration nor the mirror names a merchant',
    );
    expect(existsSync(db)).toBe(false);
  });

  it('takes CARDSYNC_MERCHANT_ID', async () => {
    const { env, db } = freshEnv();
    const result = await runCliProcess(['orders', 'import', usd.journalFile], {
      ...env,
      CARDSYNC_MERCHANT_ID: usd.merchantId,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(orderCount(db, usd.merchantId)).toBe(dataRows(usd.journalFile));
  });

  it('takes the one merchant the mirror names, and refuses to guess among two', async () => {
    const { env, db } = freshEnv();
    await runCliProcess(['orders', 'import', usd.journalFile, '--merchant', usd.merchantId], env);
    const one = await runCliProcess(['orders', 'import', usd.journalFile, '--json'], env);
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ merchantId: usd.merchantId, inserted: 0 });
    await runCliProcess(['orders', 'import', jpy.journalFile, '--merchant', jpy.merchantId], env);
    const two = await runCliProcess(['orders', 'import', usd.journalFile], env);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/the mirror holds 2 merchants/);
    expect(orderCount(db)).toBe(dataRows(usd.journalFile) + dataRows(jpy.journalFile));
  });

  it('takes the merchantId of the one configured merchant, and refuses to guess among several', async () => {
    const { env } = freshEnv();
    const one = join(dir, 'one.json');
    await writeFile(
      one,
      JSON.stringify({
        merchants: [
          { name: 'us', baseUrl: t.sandbox.baseUrl, apiKeyEnv: 'NOPE', merchantId: usd.merchantId },
        ],
      }),
    );
    const result = await runCliProcess(
      ['orders', 'import', usd.journalFile, '--config', one, '--json'],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).merchantId).toBe(usd.merchantId);
    const two = join(dir, 'two.json');
    await writeFile(
      two,
      JSON.stringify({
        merchants: [
          { name: 'us', baseUrl: t.sandbox.baseUrl, apiKeyEnv: 'NOPE', merchantId: usd.merchantId },
          { name: 'jp', baseUrl: t.sandbox.baseUrl, apiKeyEnv: 'NOPE', merchantId: jpy.merchantId },
        ],
      }),
    );
    const refused = await runCliProcess(
      ['orders', 'import', usd.journalFile, '--config', two],
      env,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe(
      'cardsync: --merchant: expected the merchant id whose books the file holds; the configuration names 2 merchants (us, jp)',
    );
  });
});

describe('cardsync orders import --merchant naming a configured merchant', () => {
  it('journals under the merchant id of the merchant the config file names so, never under its name', async () => {
    const { env, db } = freshEnv();
    const config = join(dir, 'named.json');
    await writeFile(
      config,
      JSON.stringify({
        merchants: [
          { name: 'us', baseUrl: t.sandbox.baseUrl, apiKeyEnv: 'NOPE', merchantId: usd.merchantId },
          { name: 'jp', baseUrl: t.sandbox.baseUrl, apiKeyEnv: 'NOPE' },
        ],
      }),
    );
    const named = await runCliProcess(
      ['orders', 'import', usd.journalFile, '--config', config, '--merchant', 'us', '--json'],
      env,
    );
    expect(named.code, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout).merchantId).toBe(usd.merchantId);
    expect(orderCount(db, 'us')).toBe(0);
    expect(orderCount(db, usd.merchantId)).toBe(dataRows(usd.journalFile));
    // jp has no merchantId and no sync has learnt it: its name is no id to journal under.
    const unknown = await runCliProcess(
      ['orders', 'import', jpy.journalFile, '--config', config, '--merchant', 'jp'],
      env,
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe(
      'cardsync: --merchant: expected the merchant id whose books the file holds; "jp" is the name of a configured merchant that has no merchantId and no sync has learnt it yet',
    );
    expect(orderCount(db)).toBe(dataRows(usd.journalFile));
  });
});
