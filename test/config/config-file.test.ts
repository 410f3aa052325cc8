import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigFixture,
  ENV_KEY,
  expectConfigError,
  FILE_KEY,
  PEM,
  US_KEY,
} from './config-fixture.js';

const TWO_MERCHANTS = {
  db: 'mirror/cardsync.sqlite',
  reportsDir: 'out/reports',
  merchants: [
    {
      name: 'eu-main',
      baseUrl: 'https://eu.example.com',
      apiKeyFile: 'keys/eu.key',
      caFile: 'ca.pem',
      merchantId: 'mch_eu',
    },
    { name: 'us', baseUrl: 'https://us.example.com', apiKeyEnv: 'CARDSYNC_US_KEY' },
  ],
  sync: {
    concurrency: 4,
    lookbackHours: 24,
    safetyLagSeconds: 30,
    since: '2025-01-01T01:00:00+01:00',
    maxPagesPerWindow: 50,
  },
};

const ONE_MERCHANT = {
  merchants: [{ name: 'solo', baseUrl: 'https://solo.example.com', apiKeyFile: 'solo.key' }],
  db: 'file.sqlite',
  sync: { concurrency: 3, lookbackHours: 12 },
};

describe('configuration from a config file (--config)', () => {
  let f: ConfigFixture;
  beforeEach(async () => {
    f = await ConfigFixture.create();
    await f.file('etc/keys/eu.key', `${FILE_KEY}\n`);
    await f.file('etc/ca.pem', PEM);
    await f.file('etc/solo.key', `${FILE_KEY}\n`);
  });
  afterEach(async () => f.cleanup());

  it('reads several merchants, resolving relative paths against the file’s directory', async () => {
    await f.config(TWO_MERCHANTS, 'etc/cardsync.json');
    const config = await f.load({ config: 'etc/cardsync.json' }, { CARDSYNC_US_KEY: US_KEY });
    const etc = join(f.dir, 'etc');
    expect(config.db).toBe(join(etc, 'mirror', 'cardsync.sqlite'));
    expect(config.reportsDir).toBe(join(etc, 'out', 'reports'));
    expect(config.sync).toEqual({
      concurrency: 4,
      lookbackHours: 24,
      safetyLagSeconds: 30,
      since: '2025-01-01T00:00:00.000Z',
      maxPagesPerWindow: 50,
    });
    const [eu, us] = config.merchants;
    expect(eu).toMatchObject({
      name: 'eu-main',
      baseUrl: 'https://eu.example.com',
      keySource: `file ${join(etc, 'keys', 'eu.key')}`,
      keyOrigin: 'the file merchants[0].apiKeyFile names',
      caFile: join(etc, 'ca.pem'),
      ca: PEM,
      merchantId: 'mch_eu',
    });
    expect(eu?.apiKey).toBe(FILE_KEY);
    expect(us).toMatchObject({
      name: 'us',
      keySource: 'env CARDSYNC_US_KEY',
      keyOrigin: 'CARDSYNC_US_KEY (merchants[1].apiKeyEnv)',
    });
    expect(us?.apiKey).toBe(US_KEY);
    expect(us?.ca).toBeUndefined();
  });

  it('takes the defaults for what the file leaves out, and builds the default merchant from the environment when it names none', async () => {
    await f.config({ sync: { maxPagesPerWindow: 2 } });
    const config = await f.load(
      { config: 'cardsync.json' },
      { CARDSYNC_BASE_URL: 'https://env.example.com', CARDSYNC_API_KEY: ENV_KEY },
    );
    expect(config.db).toBe(join(f.dir, 'data', 'cardsync.sqlite'));
    expect(config.sync).toEqual({
      concurrency: 8,
      lookbackHours: 72,
      safetyLagSeconds: 60,
      maxPagesPerWindow: 2,
    });
    expect(config.merchants.map((m) => [m.name, m.baseUrl])).toEqual([
      ['default', 'https://env.example.com'],
    ]);
  });

  describe('precedence: flag > environment variable > file', () => {
    it('a variable overrides the file, a flag overrides both', async () => {
      await f.config(ONE_MERCHANT, 'etc/cardsync.json');
      const env = {
        CARDSYNC_DB: 'env.sqlite',
        CARDSYNC_BASE_URL: 'https://env.example.com',
        CARDSYNC_MERCHANT_ID: 'mch_env',
      };
      const fromEnv = await f.load({ config: 'etc/cardsync.json' }, env);
      expect(fromEnv.db).toBe(join(f.dir, 'env.sqlite'));
      expect(fromEnv.merchants[0]).toMatchObject({
        name: 'solo',
        baseUrl: 'https://env.example.com',
        merchantId: 'mch_env',
      });
      expect(fromEnv.sync.concurrency).toBe(3);

      const fromFlags = await f.load(
        {
          config: 'etc/cardsync.json',
          db: 'flag.sqlite',
          baseUrl: 'https://flag.example.com',
          merchantId: 'mch_flag',
          concurrency: '16',
        },
        env,
      );
      expect(fromFlags.db).toBe(join(f.dir, 'flag.sqlite'));
      expect(fromFlags.merchants[0]).toMatchObject({
        baseUrl: 'https://flag.example.com',
        merchantId: 'mch_flag',
      });
      expect(fromFlags.sync.concurrency).toBe(16);
      expect(fromFlags.sync.lookbackHours).toBe(12);
    });

    it('the file alone gives its own values', async () => {
      await f.config(ONE_MERCHANT, 'etc/cardsync.json');
      const config = await f.load({ config: 'etc/cardsync.json' });
      expect(config.db).toBe(join(f.dir, 'etc', 'file.sqlite'));
      expect(config.origins).toEqual({ db: 'db', reportsDir: 'CARDSYNC_REPORTS_DIR' });
      expect(config.merchants[0]?.baseUrl).toBe('https://solo.example.com');
      expect(config.merchants[0]?.apiKey).toBe(FILE_KEY);
    });

    it('CARDSYNC_API_KEY overrides the key source of the file’s one merchant', async () => {
      await f.config({
        merchants: [{ name: 'solo', baseUrl: 'https://solo.example.com', apiKeyEnv: 'UNSET_KEY' }],
      });
      const config = await f.load({ config: 'cardsync.json' }, { CARDSYNC_API_KEY: ENV_KEY });
      expect(config.merchants[0]?.apiKey).toBe(ENV_KEY);
      expect(config.merchants[0]?.keySource).toBe('env CARDSYNC_API_KEY');
      expect(config.merchants[0]?.keyOrigin).toBe('CARDSYNC_API_KEY');
    });

    it('--since overrides sync.since', async () => {
      await f.config({ ...ONE_MERCHANT, sync: { since: '2024-01-01' } }, 'etc/cardsync.json');
      const config = await f.load({ config: 'etc/cardsync.json', since: '2025-06-01' });
      expect(config.sync.since).toBe('2025-06-01T00:00:00.000Z');
    });

    it.each([
      [{ baseUrl: 'https://flag.example.com' }, {}, '--base-url'],
      [{}, { CARDSYNC_BASE_URL: 'https://env.example.com' }, 'CARDSYNC_BASE_URL'],
      [{}, { CARDSYNC_API_KEY: ENV_KEY }, 'CARDSYNC_API_KEY'],
      [{}, { CARDSYNC_API_KEY_FILE: 'etc/solo.key' }, 'CARDSYNC_API_KEY_FILE'],
      [{ caFile: 'etc/ca.pem' }, {}, '--ca-file'],
      [{}, { CARDSYNC_MERCHANT_ID: 'mch_1' }, 'CARDSYNC_MERCHANT_ID'],
    ])('refuses an upstream override (%j %j) with several merchants', async (flags, env, key) => {
      await f.config(TWO_MERCHANTS, 'etc/cardsync.json');
      await expectConfigError(
        f.load({ config: 'etc/cardsync.json', ...flags }, { CARDSYNC_US_KEY: US_KEY, ...env }),
        key,
        /expected no upstream override with a config file naming 2 merchants \(eu-main, us\); set it per merchant in /,
      );
    });
  });

  describe('the file itself', () => {
    it('names a missing file', async () => {
      await expectConfigError(
        f.load({ config: 'nowhere.json' }),
        '--config',
        new RegExp(`cannot read ${join(f.dir, 'nowhere.json')} \\(ENOENT\\)`),
      );
    });

    it('names a file that cannot be read (a directory)', async () => {
      await expectConfigError(f.load({ config: 'etc' }), '--config', /\(EISDIR\)/);
    });

    it('gives the line and column of invalid JSON, without quoting the text', async () => {
      await f.file(
        'broken.json',
        `{\n  "merchants": [\n    { "name": "a", "apiKeyFile": ${FILE_KEY} }\n  ]\n}\n`,
      );
      const error = await expectConfigError(
        f.load({ config: 'broken.json' }),
        'config file',
        /expected JSON in .*broken\.json, invalid at line 3 column 34$/,
      );
      expect(error.message).not.toContain('sk_');
    });

    it('says when the JSON ends early', async () => {
      await f.file('short.json', '{ "db": ');
      await expectConfigError(
        f.load({ config: 'short.json' }),
        'config file',
        /expected JSON in .*short\.json, it ends early$/,
      );
    });

    it('says when the file is empty', async () => {
      await f.file('empty.json', '\n');
      await expectConfigError(
        f.load({ config: 'empty.json' }),
        'config file',
        /expected JSON in .*empty\.json, the file is empty$/,
      );
    });

    it('refuses a key given twice, naming it, instead of taking the last one silently', async () => {
      await f.file('twice.json', '{ "db": "a.sqlite", "reportsDir": "r", "db": "b.sqlite" }');
      await expectConfigError(
        f.load({ config: 'twice.json' }),
        'db',
        /^db: expected each key once, it is given again at line 1 column 40 \(in .*twice\.json\)$/,
      );
      await f.file(
        'nested.json',
        [
          '{',
          '  "merchants": [',
          '    { "name": "eu", "baseUrl": "https://eu.example.com", "apiKeyEnv": "A" },',
          '    { "name": "us", "baseUrl": "https://us.example.com", "apiKeyEnv": "B",',
          '      "baseUrl": "https://eu.example.com" }',
          '  ],',
          '  "recon": { "checks": { "X": false, "\\u0058": true } }',
          '}',
        ].join('\n'),
      );
      await expectConfigError(
        f.load({ config: 'nested.json' }),
        'merchants[1].baseUrl',
        /given again at line 5 column 7/,
      );
    });

    it('tells apart keys that only look alike, and reads strings holding braces and quotes', async () => {
      await f.file(
        'alike.json',
        '{ "recon": { "checks": { "A": false, "a": true }, "depositFeeRounding": "half-up" },' +
          ' "db": "x{\\"db\\": 1}.sqlite", "merchants": [{ "name": "m", "baseUrl": "https://m.example.com", "apiKeyEnv": "K" }] }',
      );
      await expectConfigError(
        f.load({ config: 'alike.json' }, { K: US_KEY }),
        'recon.checks.A',
        /expected a check code/,
      );
    });

    it('refuses a file that is not an object', async () => {
      await f.file('list.json', '[]');
      await expectConfigError(
        f.load({ config: 'list.json' }),
        'config file',
        /expected a JSON object, got an array/,
      );
    });
  });

  describe('schema', () => {
    const load = async (content: unknown, env = {}) => {
      await f.config(content);
      return f.load({ config: 'cardsync.json' }, { CARDSYNC_US_KEY: US_KEY, ...env });
    };
    const merchant = { name: 'm', baseUrl: 'https://m.example.com', apiKeyEnv: 'CARDSYNC_US_KEY' };

    it('refuses an unknown top-level key, listing the known ones', async () => {
      await expectConfigError(
        load({ merchants: [merchant], dbPath: 'x' }),
        'dbPath',
        /unknown key; expected one of db, reportsDir, merchants, sync, recon, metricsFile \(in .*cardsync\.json\)/,
      );
    });

    it('refuses an unknown key in a merchant', async () => {
      await expectConfigError(
        load({ merchants: [merchant, { ...merchant, name: 'n', baseURL: 'x' }] }),
        'merchants[1].baseURL',
        /unknown key; expected one of name, baseUrl, apiKeyFile, apiKeyEnv, caFile, merchantId/,
      );
    });

    it('refuses an unknown key in sync', async () => {
      await expectConfigError(
        load({ merchants: [merchant], sync: { pageSize: 5 } }),
        'sync.pageSize',
        /unknown key/,
      );
    });

    it('refuses an inline apiKey, pointing to apiKeyFile or apiKeyEnv, without quoting it', async () => {
      await expectConfigError(
        load({
          merchants: [merchant, { name: 'n', baseUrl: 'https://n.example.com', apiKey: FILE_KEY }],
        }),
        'merchants[1].apiKey',
        /an inline key is refused; use apiKeyFile or apiKeyEnv/,
      );
    });

    it('requires a merchant name and base URL', async () => {
      await expectConfigError(
        load({ merchants: [{ baseUrl: 'https://m.example.com', apiKeyEnv: 'CARDSYNC_US_KEY' }] }),
        'merchants[0].name',
        /expected a name of 1-64 letters, digits, '\.', '_' or '-', none given/,
      );
      await expectConfigError(
        load({ merchants: [{ name: 'm', apiKeyEnv: 'CARDSYNC_US_KEY' }] }),
        'merchants[0].baseUrl',
        /expected an https:\/\/ URL, none given/,
      );
    });

    it('refuses a merchant name outside [A-Za-z0-9_.-]{1,64}', async () => {
      await expectConfigError(
        load({ merchants: [{ ...merchant, name: 'eu main' }] }),
        'merchants[0].name',
        /expected a name of 1-64 letters/,
      );
      await expectConfigError(
        load({ merchants: [{ ...merchant, name: 'x'.repeat(65) }] }),
        'merchants[0].name',
        /expected a name of 1-64 letters/,
      );
    });

    it('refuses an http:// base URL in the file, naming its path', async () => {
      await expectConfigError(
        load({
          merchants: [merchant, { ...merchant, name: 'n', baseUrl: 'http://n.example.com' }],
        }),
        'merchants[1].baseUrl',
        /expected an https:\/\/ URL, got "http:\/\/n\.example\.com"/,
      );
    });

    it('refuses an empty merchants list', async () => {
      await expectConfigError(
        load({ merchants: [] }),
        'merchants',
        /expected a non-empty list of merchants/,
      );
    });

    it.each([
      ['concurrency', 0, 'from 1 to 64, got 0'],
      ['concurrency', 65, 'from 1 to 64, got 65'],
      ['concurrency', 2.5, 'from 1 to 64, got 2.5'],
      ['concurrency', '8', 'from 1 to 64, got a string'],
      ['lookbackHours', 2161, 'from 0 to 2160, got 2161'],
      ['safetyLagSeconds', -1, 'from 0 to 86400, got -1'],
      ['maxPagesPerWindow', 1, 'from 2 to 1000, got 1'],
      ['maxPagesPerWindow', 1001, 'from 2 to 1000, got 1001'],
    ])('refuses sync.%s %j', async (name, value, expected) => {
      await expectConfigError(
        load({ merchants: [merchant], sync: { [name]: value } }),
        `sync.${name}`,
        new RegExp(`expected a whole number ${expected.replace('.', '\\.')}`),
      );
    });

    it('refuses a sync.since in the future', async () => {
      await expectConfigError(
        load({ merchants: [merchant], sync: { since: '2099-01-01' } }),
        'sync.since',
        /expected an instant that is not in the future, got 2099-01-01T00:00:00\.000Z/,
      );
    });

    it('refuses a sync.since that is not an ISO instant', async () => {
      await expectConfigError(
        load({ merchants: [merchant], sync: { since: '01/01/2025' } }),
        'sync.since',
        /expected an ISO 8601 date/,
      );
    });

    it('refuses a wrong type, naming the expectation', async () => {
      await expectConfigError(
        load({ merchants: [merchant], db: 42 }),
        'db',
        /expected a path to the SQLite mirror, got 42/,
      );
      await expectConfigError(
        load({ merchants: {} }),
        'merchants',
        /expected a non-empty list of merchants, got an object/,
      );
    });

    it('says a number too large for JSON.parse is one, not null', async () => {
      await f.file('huge.json', '{ "sync": { "concurrency": 1e400 } }');
      await expectConfigError(
        f.load({ config: 'huge.json' }),
        'sync.concurrency',
        /^sync\.concurrency: expected a whole number from 1 to 64, got a number too large to read \(in .*huge\.json\)$/,
      );
    });

    it('never quotes a whole number past 2^53 as the neighbour JSON.parse rounded it to', async () => {
      await f.file('big.json', '{ "sync": { "lookbackHours": 9007199254740993 } }');
      await expectConfigError(
        f.load({ config: 'big.json' }),
        'sync.lookbackHours',
        /^sync\.lookbackHours: expected a whole number from 0 to 2160, got a number past 2\^53, too large to read exactly \(in .*big\.json\)$/,
      );
    });
  });

  describe('merchants', () => {
    const load = async (merchants: unknown[], env = {}) => {
      await f.config({ merchants }, 'etc/cardsync.json');
      return f.load({ config: 'etc/cardsync.json' }, { CARDSYNC_US_KEY: US_KEY, ...env });
    };

    it('refuses duplicate names', async () => {
      await expectConfigError(
        load([
          { name: 'eu', baseUrl: 'https://a.example.com', apiKeyEnv: 'CARDSYNC_US_KEY' },
          { name: 'us', baseUrl: 'https://b.example.com', apiKeyEnv: 'CARDSYNC_US_KEY' },
          { name: 'eu', baseUrl: 'https://c.example.com', apiKeyEnv: 'CARDSYNC_US_KEY' },
        ]),
        'merchants[2].name',
        /expected a unique merchant name, "eu" is also merchants\[0\]\.name/,
      );
    });

    it('refuses both apiKeyFile and apiKeyEnv', async () => {
      await expectConfigError(
        load([
          {
            name: 'eu',
            baseUrl: 'https://a.example.com',
            apiKeyFile: 'keys/eu.key',
            apiKeyEnv: 'CARDSYNC_US_KEY',
          },
        ]),
        'merchants[0]',
        /expected exactly one of apiKeyFile or apiKeyEnv, got both/,
      );
    });

    it('refuses neither apiKeyFile nor apiKeyEnv', async () => {
      await expectConfigError(
        load([
          { name: 'eu', baseUrl: 'https://a.example.com', apiKeyEnv: 'CARDSYNC_US_KEY' },
          { name: 'us', baseUrl: 'https://b.example.com' },
        ]),
        'merchants[1]',
        /expected one of apiKeyFile or apiKeyEnv, got neither/,
      );
    });

    it('refuses an apiKeyEnv naming an unset variable', async () => {
      await expectConfigError(
        load([{ name: 'eu', baseUrl: 'https://a.example.com', apiKeyEnv: 'CARDSYNC_EU_KEY' }]),
        'merchants[0].apiKeyEnv',
        /expected the environment variable it names to hold the key, it is unset/,
      );
    });

    it('refuses an apiKeyEnv that is not a variable name, without quoting it', async () => {
      await expectConfigError(
        load([{ name: 'eu', baseUrl: 'https://a.example.com', apiKeyEnv: 'sk-live-oops' }]),
        'merchants[0].apiKeyEnv',
        /expected the name of an environment variable holding the key \(in /,
      );
    });

    it('refuses an apiKeyEnv holding a key instead of a variable name without quoting it', async () => {
      // A key pasted where the variable's name belongs; sk_test_… is also a valid variable name.
      await expectConfigError(
        load([{ name: 'eu', baseUrl: 'https://a.example.com', apiKeyEnv: US_KEY }]),
        'merchants[0].apiKeyEnv',
        /to hold the key, it is unset/,
      );
    });

    it('names an unreadable apiKeyFile by its key and the reason, never by its value', async () => {
      // A key pasted where its file's path belongs: expectConfigError checks it is not quoted.
      const error = await expectConfigError(
        load([{ name: 'eu', baseUrl: 'https://a.example.com', apiKeyFile: US_KEY }]),
        'merchants[0].apiKeyFile',
        /cannot read the file it names \(ENOENT\)/,
      );
      expect(error.message).not.toContain(f.dir);
    });

    it('refuses an empty apiKeyFile', async () => {
      await f.file('etc/keys/empty.key', '');
      await expectConfigError(
        load([{ name: 'eu', baseUrl: 'https://a.example.com', apiKeyFile: 'keys/empty.key' }]),
        'merchants[0].apiKeyFile',
        /found it empty/,
      );
    });

    it('refuses a caFile whose certificate does not parse, by its key', async () => {
      await f.file(
        'etc/junk.pem',
        '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n',
      );
      await expectConfigError(
        load([
          {
            name: 'eu',
            baseUrl: 'https://a.example.com',
            apiKeyFile: 'keys/eu.key',
            caFile: 'junk.pem',
          },
        ]),
        'merchants[0].caFile',
        /expected a PEM certificate in .*junk\.pem, cannot parse the one it holds/,
      );
    });

    it('refuses a caFile without a certificate', async () => {
      await f.file('etc/not-ca.pem', 'hello\n');
      await expectConfigError(
        load([
          {
            name: 'eu',
            baseUrl: 'https://a.example.com',
            apiKeyFile: 'keys/eu.key',
            caFile: 'not-ca.pem',
          },
        ]),
        'merchants[0].caFile',
        /expected a PEM certificate/,
      );
    });

    it('refuses two merchants with the same base URL and the same key, from whatever source', async () => {
      await f.file('etc/us.key', `${US_KEY}\n`);
      await expectConfigError(
        load([
          { name: 'eu', baseUrl: 'https://cards.example.com/v1', apiKeyEnv: 'CARDSYNC_US_KEY' },
          { name: 'gb', baseUrl: 'https://cards.example.com/v2', apiKeyEnv: 'CARDSYNC_US_KEY' },
          { name: 'us', baseUrl: 'HTTPS://Cards.Example.com/v1/', apiKeyFile: 'us.key' },
        ]),
        'merchants[2].apiKeyFile',
        /^merchants\[2\]\.apiKeyFile: expected a key of its own for https:\/\/cards\.example\.com\/v1, merchant eu reads it with the same key$/,
      );
    });

    it('takes two merchants on one upstream, each with its own key', async () => {
      const config = await load(
        [
          { name: 'eu', baseUrl: 'https://cards.example.com', apiKeyEnv: 'CARDSYNC_US_KEY' },
          { name: 'us', baseUrl: 'https://cards.example.com', apiKeyEnv: 'CARDSYNC_EU_KEY' },
        ],
        { CARDSYNC_EU_KEY: ENV_KEY },
      );
      expect(config.merchants.map((m) => m.name)).toEqual(['eu', 'us']);
    });

    it('refuses two merchants with the same merchantId', async () => {
      await expectConfigError(
        load([
          {
            name: 'a',
            baseUrl: 'https://a.example.com',
            apiKeyEnv: 'CARDSYNC_US_KEY',
            merchantId: 'mch_1',
          },
          {
            name: 'b',
            baseUrl: 'https://b.example.com',
            apiKeyEnv: 'CARDSYNC_US_KEY',
            merchantId: 'mch_1',
          },
        ]),
        'merchants[1].merchantId',
        /expected a merchant id of its own, merchant a has the same/,
      );
    });
  });
});
