import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadTlsMaterial } from '../../src/sandbox/tls/certificates.js';
import { Database } from '../../src/sqlite-driver.js';
import { runCliProcess, sandboxCliEnv } from '../support/cli-process.js';
import {
  deadPort,
  type EgressProxy,
  type NamedSandbox,
  startEgressProxy,
  startNamedSandbox,
} from '../support/egress-proxy.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import { logLines, messageLines } from './job-fixture.js';

/** Every proxy variable, emptied (an empty one counts as unset), so the host's do not leak in. */
const NO_PROXY_VARIABLES = {
  HTTPS_PROXY: '',
  https_proxy: '',
  HTTP_PROXY: '',
  http_proxy: '',
  NO_PROXY: '',
  no_proxy: '',
};

const PASSWORD = 'pr0xy-s3cret';

/** Every file under `dir`, recursively, as latin1 text (a SQLite file included). */
function textsUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((file) => statSync(file).isFile())
    .map((file) => readFileSync(file, 'latin1'));
}

// A host that reaches the internet only through a proxy: the upstream's name resolves nowhere
// but at the proxy, which dials it (here, the sandbox on 127.0.0.1).
describe('cardsync behind an egress proxy (HTTPS_PROXY)', () => {
  let upstream: NamedSandbox;
  let proxy: EgressProxy;
  let dir: string;
  let env: Record<string, string>;
  /** What the next CONNECTs are refused with, in turn; opened once none is left. */
  let refusals: number[] = [];
  beforeAll(async () => {
    upstream = await startNamedSandbox('cards.upstream.test', {
      seed: 'egress-proxy',
      world: { cards: 12, transactions: 60, days: 5, anomaliesPerCode: 0 },
    });
    proxy = await startEgressProxy({ hosts: upstream.hosts, answer: () => refusals.shift() });
    dir = await mkdtemp(join(tmpdir(), 'cardsync-egress-'));
    env = {
      ...NO_PROXY_VARIABLES,
      CARDSYNC_BASE_URL: upstream.baseUrl,
      CARDSYNC_API_KEY: upstream.t.sandbox.merchants[0]!.apiKey,
      CARDSYNC_API_KEY_FILE: '',
      CARDSYNC_CA_FILE: upstream.caFile,
      CARDSYNC_DB: join(dir, 'mirror.sqlite'),
    };
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    proxy.seen.length = 0;
    refusals = [];
  });
  const withCredentials = () => `http://cardsync:${PASSWORD}@127.0.0.1:${proxy.port}`;

  it('reads the balance through a CONNECT tunnel to the upstream, with the Basic credentials of the URL', async () => {
    const { port } = new URL(upstream.baseUrl);
    const result = await runCliProcess(['balance', '--json'], {
      ...env,
      HTTPS_PROXY: `http://cardsync:${PASSWORD}@127.0.0.1:${proxy.port}`,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      balance: expect.any(String),
      currency: 'USD',
    });
    expect(proxy.seen.length).toBeGreaterThan(0);
    for (const seen of proxy.seen) {
      expect(seen.target).toBe(`cards.upstream.test:${port}`);
      expect(seen.authorization).toBe(
        `Basic ${Buffer.from(`cardsync:${PASSWORD}`).toString('base64')}`,
      );
    }
    expect(result.stderr).not.toContain(PASSWORD);
  }, 30_000);

  it('runs the nightly job through it, logging the proxy without its credentials, which nothing keeps', async () => {
    const reportsDir = join(dir, 'reports');
    const result = await runCliProcess(['run', '--json'], {
      ...env,
      https_proxy: withCredentials(),
      CARDSYNC_REPORTS_DIR: reportsDir,
    });
    expect(result.code, result.stderr).toBe(0);
    const run = JSON.parse(result.stdout) as { sync: { outcome: string } };
    expect(run.sync.outcome).toBe('done');
    expect(proxy.seen.length).toBeGreaterThan(0);
    const configured = logLines<{ msg: string; config: { proxy?: unknown } }>(result.stderr).find(
      (l) => l.msg === 'configured',
    );
    expect(configured?.config.proxy).toEqual({
      shown: `http://127.0.0.1:${proxy.port}`,
      from: 'https_proxy',
      noProxy: '',
    });
    for (const text of [result.stdout, result.stderr, ...textsUnder(dir)])
      expect(text).not.toContain(PASSWORD);
  }, 60_000);

  it("reaches an https:// proxy whose CA NODE_EXTRA_CA_CERTS adds, the upstream's still verified by CARDSYNC_CA_FILE", async () => {
    const identity = await loadTlsMaterial(join(dir, 'proxy-tls'), false);
    const secure = await startEgressProxy({
      hosts: upstream.hosts,
      tls: { cert: identity.certPem, key: identity.keyPem },
    });
    try {
      const result = await runCliProcess(['balance', '--json'], {
        ...env,
        HTTPS_PROXY: `https://cardsync:${PASSWORD}@127.0.0.1:${secure.port}`,
        NODE_EXTRA_CA_CERTS: identity.caFile,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(secure.seen).toHaveLength(1);
      expect(result.stderr).not.toContain(PASSWORD);
    } finally {
      await secure.close();
    }
  }, 30_000);

  it('falls back to HTTP_PROXY when no https_proxy or HTTPS_PROXY is set', async () => {
    const result = await runCliProcess(['balance', '--json'], {
      ...env,
      HTTP_PROXY: `http://127.0.0.1:${proxy.port}`,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(proxy.seen).toHaveLength(1);
    expect(proxy.seen[0]?.authorization).toBeUndefined();
  }, 30_000);

  it('goes straight to a host NO_PROXY names', async () => {
    const result = await runCliProcess(['balance', '--json'], {
      ...env,
      HTTPS_PROXY: withCredentials(),
      NO_PROXY: 'internal.example, upstream.test',
    });
    // Straight, the name resolves nowhere: what a host NO_PROXY wrongly names meets.
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('(ENOTFOUND: the host name does not resolve)');
    expect(proxy.seen).toEqual([]);
  }, 30_000);

  it('exits 3, as for a refused key, on a 407 with one line naming the proxy without its credentials, after one CONNECT', async () => {
    refusals = [407, 407, 407, 407, 407, 407];
    const result = await runCliProcess(['balance', '--json'], {
      ...env,
      HTTPS_PROXY: withCredentials(),
    });
    expect(result.code).toBe(3);
    const message = `proxy http://127.0.0.1:${proxy.port} refused the tunnel to ${upstream.baseUrl} with 407 (Proxy Authentication Required: are the credentials in its URL right?) (1 attempt), for default`;
    expect(messageLines(result.stderr)).toEqual([`cardsync: ${message}`]);
    expect(JSON.parse(result.stdout)).toMatchObject({ exitCode: 3, error: { message } });
    expect(proxy.seen).toHaveLength(1);
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
  }, 30_000);

  it('ends a run refused with 407 as one whose key was refused: exit 3, not retried by a unit that retries 4, data incomplete', async () => {
    refusals = Array.from({ length: 50 }, () => 407);
    const result = await runCliProcess(['run', '--json'], {
      ...env,
      HTTPS_PROXY: withCredentials(),
      CARDSYNC_REPORTS_DIR: join(dir, 'reports-407'),
    });
    expect(result.code).toBe(3);
    const run = JSON.parse(result.stdout) as {
      sync: { outcome: string };
      reconcile: { data: { complete: boolean } } | null;
    };
    expect(run.sync.outcome).toBe('unauthorized');
    expect(run.reconcile?.data.complete).toBe(false);
    const summary = readFileSync(join(dir, 'reports-407', 'latest', 'summary.csv'), 'utf8');
    expect(summary).toContain(
      'the proxy refused its credentials on the way to the upstream of default (407); its data was not refreshed',
    );
    expect(result.stdout + result.stderr).toContain('with 407 (Proxy Authentication Required');
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
  }, 60_000);

  it('exits 3 on a 407 for an order, taking nothing, and the same order goes through once the credentials are right', async () => {
    const orderEnv = {
      ...env,
      HTTPS_PROXY: withCredentials(),
      CARDSYNC_DB: join(dir, 'orders.sqlite'),
    };
    const listed = await runCliProcess(['cards', 'list', '--json'], orderEnv);
    expect(listed.code, listed.stderr).toBe(0);
    const cards = JSON.parse(listed.stdout).data as { cardId: string; status: string }[];
    const cardId = cards.find((c) => c.status === 'ACTIVE')!.cardId;
    const freeze = ['cards', 'freeze', cardId, '--merchant-order-no', 'PROXY-407'];
    refusals = [407];
    const refused = await runCliProcess(freeze, orderEnv);
    expect(refused.code, refused.stderr).toBe(3);
    expect(messageLines(refused.stderr)).toEqual([
      expect.stringMatching(
        /^cardsync: .*with 407 \(Proxy Authentication Required.*, for default$/,
      ),
    ]);
    expect(refused.stdout + refused.stderr).not.toContain(PASSWORD);
    const journaled = () => {
      if (!existsSync(orderEnv.CARDSYNC_DB)) return undefined;
      const db = new Database(orderEnv.CARDSYNC_DB, { readonly: true });
      try {
        return db
          .prepare('SELECT state FROM orders WHERE merchant_order_no = ?')
          .pluck()
          .get('PROXY-407');
      } finally {
        db.close();
      }
    };
    // Not REJECTED: the upstream never saw it, and nothing holds the reference against it.
    expect([undefined, 'SUBMITTED']).toContain(journaled());
    const placed = await runCliProcess(freeze, orderEnv);
    expect(placed.code, placed.stderr).toBe(0);
    expect(journaled()).toBe('ACCEPTED');
  }, 60_000);

  it('exits 4 naming a proxy it cannot reach, without its credentials', async () => {
    const port = await deadPort();
    const result = await runCliProcess(['balance'], {
      ...env,
      HTTPS_PROXY: `http://cardsync:${PASSWORD}@127.0.0.1:${port}`,
    });
    expect(result.code).toBe(4);
    expect(messageLines(result.stderr)).toEqual([
      `cardsync: balance: upstream unavailable: getMerchantBalance: connection to proxy http://127.0.0.1:${port} failed (ECONNREFUSED: connection refused), on the way to ${upstream.baseUrl} (6 attempts)`,
    ]);
    expect(result.stderr).not.toContain(PASSWORD);
  }, 60_000);

  it('exits 2 for a proxy variable that is no http:// or https:// URL, naming it, not quoting it', async () => {
    const result = await runCliProcess(['balance'], {
      ...env,
      HTTPS_PROXY: `socks5://cardsync:${PASSWORD}@127.0.0.1:1080`,
    });
    expect(result.code).toBe(2);
    expect(messageLines(result.stderr)).toEqual([
      'cardsync: HTTPS_PROXY: expected a proxy URL such as http://proxy.example:3128 (http:// or https://), got socks5://',
    ]);
    expect(proxy.seen).toEqual([]);
  }, 30_000);
});

// The demo, the tests and `cardsync run --config demo/cardsync.json` talk to a sandbox on
// loopback, which no proxy can reach for us: an operator's HTTPS_PROXY must not get in the way.
describe('a loopback upstream with HTTPS_PROXY set', () => {
  let local: TestSandbox;
  let proxy: EgressProxy;
  let dir: string;
  beforeAll(async () => {
    local = await startTestSandbox({ merchants: 1, seed: 'egress-loopback' });
    proxy = await startEgressProxy();
    dir = await mkdtemp(join(tmpdir(), 'cardsync-egress-loopback-'));
  });
  afterAll(async () => {
    await proxy?.close();
    await local?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is reached directly, by name or address, whatever NO_PROXY says', async () => {
    const { port } = new URL(local.sandbox.baseUrl);
    for (const baseUrl of [`https://localhost:${port}`, `https://127.0.0.1:${port}`]) {
      const result = await runCliProcess(['balance', '--json'], {
        ...NO_PROXY_VARIABLES,
        ...sandboxCliEnv(local, join(dir, 'mirror.sqlite')),
        CARDSYNC_BASE_URL: baseUrl,
        HTTPS_PROXY: proxy.url,
        https_proxy: proxy.url,
        NO_PROXY: 'internal.example',
      });
      expect(result.code, result.stderr).toBe(0);
    }
    expect(proxy.seen).toEqual([]);
  }, 30_000);
});
