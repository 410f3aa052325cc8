import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeConfig, loadJobConfig } from '../../src/config/index.js';
import {
  ConfigFixture,
  ENV_KEY,
  expectConfigError,
  FILE_KEY,
  PEM,
  SECRETS,
} from './config-fixture.js';

const JUNK_PEM = '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n';

const BASE = { CARDSYNC_BASE_URL: 'https://issuer.example.com', CARDSYNC_API_KEY: ENV_KEY };

describe('configuration from flags and environment variables (no config file)', () => {
  let f: ConfigFixture;
  beforeEach(async () => {
    f = await ConfigFixture.create();
  });
  afterEach(async () => f.cleanup());

  it('builds one merchant named default with the defaults of job-interface.md', async () => {
    const config = await f.load({}, BASE);
    expect(config.db).toBe(join(f.dir, 'data', 'cardsync.sqlite'));
    expect(config.reportsDir).toBe(join(f.dir, 'reports'));
    expect(config.sync).toEqual({
      concurrency: 8,
      lookbackHours: 72,
      safetyLagSeconds: 60,
      maxPagesPerWindow: 20,
    });
    expect(config.merchants).toHaveLength(1);
    const [merchant] = config.merchants;
    expect(merchant?.name).toBe('default');
    expect(merchant?.baseUrl).toBe('https://issuer.example.com');
    expect(merchant?.apiKey).toBe(ENV_KEY);
    expect(merchant?.keySource).toBe('env CARDSYNC_API_KEY');
    expect(merchant?.keyOrigin).toBe('CARDSYNC_API_KEY');
    expect(merchant?.ca).toBeUndefined();
    expect(merchant?.merchantId).toBeUndefined();
  });

  it('reads every upstream setting: the key file (trailing newline dropped), CA and merchant id', async () => {
    const keyFile = await f.file('secrets/key', `${FILE_KEY}\n`);
    const caFile = await f.file('ca.pem', PEM);
    const config = await f.load(
      {},
      {
        CARDSYNC_BASE_URL: 'https://issuer.example.com/v1/',
        CARDSYNC_API_KEY_FILE: 'secrets/key',
        CARDSYNC_CA_FILE: 'ca.pem',
        CARDSYNC_MERCHANT_ID: 'mch_0001',
        CARDSYNC_DB: 'mirror.sqlite',
        CARDSYNC_REPORTS_DIR: '/var/reports',
      },
    );
    const [merchant] = config.merchants;
    expect(merchant?.baseUrl).toBe('https://issuer.example.com/v1');
    expect(merchant?.apiKey).toBe(FILE_KEY);
    expect(merchant?.keySource).toBe(`file ${keyFile}`);
    expect(merchant?.keyOrigin).toBe('the file CARDSYNC_API_KEY_FILE names');
    expect(merchant?.ca).toBe(PEM);
    expect(merchant?.caFile).toBe(caFile);
    expect(merchant?.merchantId).toBe('mch_0001');
    expect(config.db).toBe(join(f.dir, 'mirror.sqlite'));
    expect(config.reportsDir).toBe('/var/reports');
  });

  it('names where each path came from: a flag, a variable, or the variable of the default', async () => {
    const defaults = await f.load({}, BASE);
    expect(defaults.origins).toEqual({ db: 'CARDSYNC_DB', reportsDir: 'CARDSYNC_REPORTS_DIR' });
    const given = await f.load(
      { db: 'flag.sqlite', metricsFile: 'm.prom' },
      { ...BASE, CARDSYNC_REPORTS_DIR: 'r' },
    );
    expect(given.origins).toEqual({
      db: '--db',
      reportsDir: 'CARDSYNC_REPORTS_DIR',
      metricsFile: '--metrics-file',
    });
  });

  it('lets a flag override its environment variable', async () => {
    await f.file('flag-ca.pem', PEM);
    const config = await f.load(
      {
        baseUrl: 'https://flag.example.com',
        caFile: 'flag-ca.pem',
        merchantId: 'mch_flag',
        db: 'flag.sqlite',
        reportsDir: 'flag-reports',
      },
      {
        ...BASE,
        CARDSYNC_CA_FILE: 'missing-env-ca.pem',
        CARDSYNC_MERCHANT_ID: 'mch_env',
        CARDSYNC_DB: 'env.sqlite',
        CARDSYNC_REPORTS_DIR: 'env-reports',
      },
    );
    expect(config.merchants[0]?.baseUrl).toBe('https://flag.example.com');
    expect(config.merchants[0]?.caFile).toBe(join(f.dir, 'flag-ca.pem'));
    expect(config.merchants[0]?.merchantId).toBe('mch_flag');
    expect(config.db).toBe(join(f.dir, 'flag.sqlite'));
    expect(config.reportsDir).toBe(join(f.dir, 'flag-reports'));
  });

  it('treats an empty variable as unset', async () => {
    const config = await f.load({}, { ...BASE, CARDSYNC_API_KEY_FILE: '', CARDSYNC_DB: '' });
    expect(config.merchants[0]?.apiKey).toBe(ENV_KEY);
    expect(config.db).toBe(join(f.dir, 'data', 'cardsync.sqlite'));
  });

  it('returns a deep-frozen configuration', async () => {
    const config = await f.load({}, BASE);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.sync)).toBe(true);
    expect(Object.isFrozen(config.merchants)).toBe(true);
    expect(Object.isFrozen(config.merchants[0])).toBe(true);
    expect(() => {
      (config as { db: string }).db = 'elsewhere';
    }).toThrow(TypeError);
  });

  it('keeps the key out of JSON, spreads and describeConfig', async () => {
    const config = await f.load({}, BASE);
    expect(JSON.stringify(config)).not.toContain(ENV_KEY);
    expect(JSON.stringify({ ...config.merchants[0] })).not.toContain(ENV_KEY);
    const described = describeConfig(config);
    expect(JSON.stringify(described)).not.toContain(ENV_KEY);
    expect(described.merchants).toEqual([
      { name: 'default', baseUrl: 'https://issuer.example.com', keyFrom: 'CARDSYNC_API_KEY' },
    ]);
    expect(described.sync.concurrency).toBe(8);
  });

  it('reads no merchant, key or CA for a command that does not call the upstream', async () => {
    const config = await loadJobConfig(
      f.inputs({ concurrency: '2' }, { CARDSYNC_BASE_URL: 'http://plain' }, false),
    );
    expect(config.merchants).toEqual([]);
    expect(config.sync.concurrency).toBe(2);
  });

  it('never reads process.env or process.cwd(): everything comes from the inputs', async () => {
    const saved = process.env.CARDSYNC_BASE_URL;
    process.env.CARDSYNC_BASE_URL = 'https://from-process.example.com';
    try {
      await expectConfigError(
        f.load({}, { CARDSYNC_API_KEY: ENV_KEY }),
        'CARDSYNC_BASE_URL',
        /none given/,
      );
      const config = await f.load({}, BASE);
      expect(config.db.startsWith(f.dir)).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.CARDSYNC_BASE_URL;
      else process.env.CARDSYNC_BASE_URL = saved;
    }
  });

  describe('base URL', () => {
    it('refuses http:// naming the variable and the value', async () => {
      const error = await expectConfigError(
        f.load({}, { ...BASE, CARDSYNC_BASE_URL: 'http://x' }),
        'CARDSYNC_BASE_URL',
        /expected an https:\/\/ URL/,
      );
      expect(error.message).toBe('CARDSYNC_BASE_URL: expected an https:// URL, got "http://x"');
    });

    it('refuses an unparsable URL, naming the flag when the flag gave it', async () => {
      await expectConfigError(
        f.load({ baseUrl: 'not a url' }, BASE),
        '--base-url',
        /expected an https:\/\/ URL, got text that does not parse as one \(not shown\)/,
      );
    });

    it('refuses credentials in the URL without repeating them', async () => {
      const error = await expectConfigError(
        f.load({}, { ...BASE, CARDSYNC_BASE_URL: 'https://user:hunter2@issuer.example.com' }),
        'CARDSYNC_BASE_URL',
        /without credentials/,
      );
      expect(error.message).not.toContain('hunter2');
    });

    it('never repeats credentials, whatever form the URL takes', async () => {
      for (const text of [
        'http:user:hunter2@issuer.example.com',
        'ftp://user:hunter2@issuer.example.com',
        'https:///user:hunter2@issuer.example.com',
        'HTTP://hunter2@issuer.example.com/v1',
      ]) {
        const error = await expectConfigError(
          f.load({}, { ...BASE, CARDSYNC_BASE_URL: text }),
          'CARDSYNC_BASE_URL',
          /expected an https:\/\/ URL/,
        );
        expect(error.message, text).not.toContain('hunter2');
      }
    });

    it('never repeats a query or fragment, which may carry a key', async () => {
      const error = await expectConfigError(
        f.load(
          {},
          { ...BASE, CARDSYNC_BASE_URL: `https://issuer.example.com/v1?api_key=${ENV_KEY}` },
        ),
        'CARDSYNC_BASE_URL',
        /without a query or fragment, got "https:\/\/issuer\.example\.com\/v1\?…"$/,
      );
      expect(error.message).not.toContain('api_key');
      await expectConfigError(
        f.load({}, { ...BASE, CARDSYNC_BASE_URL: `http://issuer.example.com/#${ENV_KEY}` }),
        'CARDSYNC_BASE_URL',
        /got "http:\/\/issuer\.example\.com\/#…"$/,
      );
    });

    it('never repeats text that is not a URL: a key set in the wrong variable', async () => {
      for (const text of [ENV_KEY, `${ENV_KEY}:x`]) {
        const error = await expectConfigError(
          f.load({ baseUrl: text }, BASE),
          '--base-url',
          /expected an https:\/\/ URL, got /,
        );
        expect(error.message, text).not.toContain('sk_test');
      }
    });

    it('accepts an upper-case scheme, an IPv6 literal and a path prefix, dropping a trailing slash', async () => {
      const config = await f.load({}, { ...BASE, CARDSYNC_BASE_URL: 'HTTPS://[::1]:8443/api/v1/' });
      expect(config.merchants[0]?.baseUrl).toBe('https://[::1]:8443/api/v1');
    });

    it('refuses a query or fragment', async () => {
      await expectConfigError(
        f.load({}, { ...BASE, CARDSYNC_BASE_URL: 'https://issuer.example.com/?a=1' }),
        'CARDSYNC_BASE_URL',
        /without a query or fragment/,
      );
    });

    it('requires one when the upstream is needed', async () => {
      await expectConfigError(
        f.load({}, { CARDSYNC_API_KEY: ENV_KEY }),
        'CARDSYNC_BASE_URL',
        /expected an https:\/\/ URL \(or --base-url\), none given/,
      );
    });
  });

  describe('API key', () => {
    it('requires CARDSYNC_API_KEY or CARDSYNC_API_KEY_FILE', async () => {
      await expectConfigError(
        f.load({}, { CARDSYNC_BASE_URL: 'https://issuer.example.com' }),
        'CARDSYNC_API_KEY',
        /neither is set/,
      );
    });

    it('refuses both CARDSYNC_API_KEY and CARDSYNC_API_KEY_FILE', async () => {
      await f.file('key', FILE_KEY);
      await expectConfigError(
        f.load({}, { ...BASE, CARDSYNC_API_KEY_FILE: 'key' }),
        'CARDSYNC_API_KEY',
        /not both/,
      );
    });

    it('names an unreadable key file by its variable and the reason, not by its path', async () => {
      const error = await expectConfigError(
        f.load(
          {},
          { CARDSYNC_BASE_URL: BASE.CARDSYNC_BASE_URL, CARDSYNC_API_KEY_FILE: 'nope.key' },
        ),
        'CARDSYNC_API_KEY_FILE',
        /cannot read the file it names \(ENOENT\)/,
      );
      expect(error.message).not.toContain('nope.key');
    });

    it('never echoes a key put in CARDSYNC_API_KEY_FILE by mistake', async () => {
      // expectConfigError checks that no test key is in the message.
      await expectConfigError(
        f.load({}, { CARDSYNC_BASE_URL: BASE.CARDSYNC_BASE_URL, CARDSYNC_API_KEY_FILE: FILE_KEY }),
        'CARDSYNC_API_KEY_FILE',
        /expected a readable key file, cannot read the file it names \(ENOENT\)/,
      );
    });

    it('never echoes the path of a key file that holds no key', async () => {
      await f.file(`${ENV_KEY}/x`, '\n');
      const error = await expectConfigError(
        f.load(
          {},
          { CARDSYNC_BASE_URL: BASE.CARDSYNC_BASE_URL, CARDSYNC_API_KEY_FILE: `${ENV_KEY}/x` },
        ),
        'CARDSYNC_API_KEY_FILE',
        /found it empty/,
      );
      expect(error.message).not.toContain(f.dir);
    });

    // Root reads a mode-000 file anyway.
    it.skipIf(process.getuid?.() === 0)(
      'refuses a key file that cannot be opened for reading',
      async () => {
        await f.file('locked.key', FILE_KEY, 0o000);
        await expectConfigError(
          f.load(
            {},
            { CARDSYNC_BASE_URL: BASE.CARDSYNC_BASE_URL, CARDSYNC_API_KEY_FILE: 'locked.key' },
          ),
          'CARDSYNC_API_KEY_FILE',
          /cannot read the file it names \(EACCES\)/,
        );
      },
    );

    it('refuses an empty key file (a lone newline counts as empty)', async () => {
      await f.file('empty.key', '\n');
      await expectConfigError(
        f.load(
          {},
          { CARDSYNC_BASE_URL: BASE.CARDSYNC_BASE_URL, CARDSYNC_API_KEY_FILE: 'empty.key' },
        ),
        'CARDSYNC_API_KEY_FILE',
        /expected a key in the key file it names, found it empty/,
      );
    });

    it('refuses a key file of several lines without quoting them', async () => {
      await f.file('two.key', `${FILE_KEY}\n${SECRETS[2]}\n`);
      await expectConfigError(
        f.load({}, { CARDSYNC_BASE_URL: BASE.CARDSYNC_BASE_URL, CARDSYNC_API_KEY_FILE: 'two.key' }),
        'CARDSYNC_API_KEY_FILE',
        /expected one key without spaces or line breaks/,
      );
    });

    it('refuses a key with a character no HTTP header can carry (a pasted curly quote), naming the variable', async () => {
      await expectConfigError(
        f.load({}, { ...BASE, CARDSYNC_API_KEY: `${ENV_KEY}\u201d` }),
        'CARDSYNC_API_KEY',
        /expected one key of printable ASCII characters in environment variable CARDSYNC_API_KEY, found U\+201D/,
      );
      await f.file('quoted.key', `\u201c${FILE_KEY}\u201d\n`);
      await expectConfigError(
        f.load(
          {},
          { CARDSYNC_BASE_URL: BASE.CARDSYNC_BASE_URL, CARDSYNC_API_KEY_FILE: 'quoted.key' },
        ),
        'CARDSYNC_API_KEY_FILE',
        /expected one key of printable ASCII characters in the key file it names, found U\+201C/,
      );
    });

    it('drops a CRLF line ending from the key file', async () => {
      await f.file('crlf.key', `${FILE_KEY}\r\n`);
      const config = await f.load(
        {},
        { CARDSYNC_BASE_URL: BASE.CARDSYNC_BASE_URL, CARDSYNC_API_KEY_FILE: 'crlf.key' },
      );
      expect(config.merchants[0]?.apiKey).toBe(FILE_KEY);
    });
  });

  describe('CA file', () => {
    it('refuses a damaged certificate, naming the variable or flag that named the file', async () => {
      await f.file('junk.pem', JUNK_PEM);
      await expectConfigError(
        f.load({}, { ...BASE, CARDSYNC_CA_FILE: 'junk.pem' }),
        'CARDSYNC_CA_FILE',
        /expected a PEM certificate in .*junk\.pem, cannot parse the one it holds/,
      );
      await expectConfigError(
        f.load({ caFile: 'junk.pem' }, BASE),
        '--ca-file',
        /cannot parse the one it holds/,
      );
    });

    it('names an unreadable CA file', async () => {
      await expectConfigError(
        f.load({}, { ...BASE, CARDSYNC_CA_FILE: 'missing.pem' }),
        'CARDSYNC_CA_FILE',
        /expected a readable PEM file, cannot read .*missing\.pem \(ENOENT\)/,
      );
    });

    it('never echoes the key when it is pasted where the CA file belongs', async () => {
      const error = await expectConfigError(
        f.load({}, { ...BASE, CARDSYNC_CA_FILE: ENV_KEY }),
        'CARDSYNC_CA_FILE',
        /expected a readable PEM file, cannot read .*\(the key\) \(ENOENT\)/,
      );
      expect(error.cause).toBeUndefined();
      await f.file(ENV_KEY, JUNK_PEM);
      await expectConfigError(
        f.load({ caFile: ENV_KEY }, BASE),
        '--ca-file',
        /expected a PEM certificate in .*\(the key\), cannot parse the one it holds/,
      );
    });

    it('refuses a file without a PEM certificate', async () => {
      await f.file('key.pem', '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n');
      await expectConfigError(
        f.load({ caFile: 'key.pem' }, BASE),
        '--ca-file',
        /expected a PEM certificate \(-----BEGIN CERTIFICATE-----\) in .*key\.pem, found none/,
      );
    });
  });

  describe('merchant id', () => {
    it('refuses one with spaces', async () => {
      await expectConfigError(
        f.load({}, { ...BASE, CARDSYNC_MERCHANT_ID: 'mch 1' }),
        'CARDSYNC_MERCHANT_ID',
        /expected a merchant id of 1-128 characters without spaces/,
      );
    });
  });

  describe('numeric flags', () => {
    it.each([
      ['concurrency', '--concurrency', '0', 1, 64],
      ['concurrency', '--concurrency', '65', 1, 64],
      ['concurrency', '--concurrency', '2.5', 1, 64],
      ['concurrency', '--concurrency', 'eight', 1, 64],
      ['lookbackHours', '--lookback-hours', '2161', 0, 2160],
      ['lookbackHours', '--lookback-hours', '-1', 0, 2160],
      ['safetyLagSeconds', '--safety-lag-seconds', '86401', 0, 86400],
      ['safetyLagSeconds', '--safety-lag-seconds', '', 0, 86400],
    ] as const)('refuses %s %j (%s)', async (name, flag, value, min, max) => {
      const error = await expectConfigError(
        f.load({ [name]: value }, BASE),
        flag,
        new RegExp(`expected a whole number from ${min} to ${max}`),
      );
      expect(error.message).toContain(`got ${JSON.stringify(value)}`);
    });

    it('accepts the bounds of each range', async () => {
      const config = await f.load(
        { concurrency: '64', lookbackHours: '0', safetyLagSeconds: '86400' },
        BASE,
      );
      expect(config.sync).toMatchObject({
        concurrency: 64,
        lookbackHours: 0,
        safetyLagSeconds: 86400,
      });
    });
  });

  describe('--since', () => {
    it.each([
      ['2025-01-01', '2025-01-01T00:00:00.000Z'],
      ['2025-01-01T02:30:00Z', '2025-01-01T02:30:00.000Z'],
      ['2025-01-01T02:30Z', '2025-01-01T02:30:00.000Z'],
      ['2025-01-01T02:30:00.1234+02:00', '2025-01-01T00:30:00.123Z'],
      ['2024-02-29T23:00:00-01:00', '2024-03-01T00:00:00.000Z'],
    ])('normalises %s to %s', async (since, expected) => {
      expect((await f.load({ since }, BASE)).sync.since).toBe(expected);
    });

    it.each([
      'yesterday',
      '2025-13-01',
      '2025-02-30',
      '2025-01-01T24:00:00Z',
      '2025-01-01T10:00:00',
      '2025-01-01 10:00:00Z',
      '1735689600',
    ])('refuses %j', async (since) => {
      await expectConfigError(
        f.load({ since }, BASE),
        '--since',
        /expected an ISO 8601 date \(2025-01-01\) or date-time with offset/,
      );
    });

    it('refuses an instant after the wall clock, and takes one at it', async () => {
      const now = Date.parse('2026-03-01T12:00:00.000Z');
      const load = (since: string) =>
        loadJobConfig({ ...f.inputs({ since }, BASE), now: () => now });
      await expectConfigError(
        load('2026-03-01T12:00:00.001Z'),
        '--since',
        /^--since: expected an instant that is not in the future, got 2026-03-01T12:00:00\.001Z \(now is 2026-03-01T12:00:00\.000Z\)$/,
      );
      await expectConfigError(load('2099-01-01'), '--since', /not in the future/);
      expect((await load('2026-03-01T13:00:00+01:00')).sync.since).toBe('2026-03-01T12:00:00.000Z');
    });

    it('refuses an instant in year 0, whose window query (widened by 1 ms) no upstream takes, and takes year 1', async () => {
      for (const since of ['0000-01-01', '0000-12-31T23:59:59Z', '0001-01-01T00:30:00+01:00'])
        await expectConfigError(
          f.load({ since }, BASE),
          '--since',
          /^--since: expected an instant from 0001-01-01T00:00:00Z on, got /,
        );
      expect((await f.load({ since: '0001-01-01' }, BASE)).sync.since).toBe(
        '0001-01-01T00:00:00.000Z',
      );
    });
  });

  it('refuses an empty --db', async () => {
    await expectConfigError(f.load({ db: '' }, BASE), '--db', /expected a path/);
  });

  it('refuses an empty --ca-file as --db, instead of reading the current folder as the CA', async () => {
    await expectConfigError(
      f.load({ caFile: '' }, BASE),
      '--ca-file',
      /^--ca-file: expected a path, got ""$/,
    );
  });
});
