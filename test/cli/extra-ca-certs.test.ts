import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess, sandboxCliEnv } from '../support/cli-process.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

// The upstream's CA is trusted through NODE_EXTRA_CA_CERTS (as a host whose TLS-inspecting proxy
// signs every certificate has it); CARDSYNC_CA_FILE names another, unrelated CA.
describe('CARDSYNC_CA_FILE with NODE_EXTRA_CA_CERTS', () => {
  let upstream: TestSandbox;
  let unrelated: TestSandbox;
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    upstream = await startTestSandbox({ merchants: 1, seed: 'extra-ca-upstream' });
    unrelated = await startTestSandbox({ merchants: 1, seed: 'extra-ca-unrelated' });
    dir = await mkdtemp(join(tmpdir(), 'cardsync-extra-ca-'));
    env = {
      ...sandboxCliEnv(upstream, join(dir, 'mirror.sqlite')),
      CARDSYNC_CA_FILE: unrelated.sandbox.caFile,
    };
  });
  afterAll(async () => {
    await upstream.close();
    await unrelated.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('adds the CA file to the certificates NODE_EXTRA_CA_CERTS adds, rather than dropping them', async () => {
    const trusted = await runCliProcess(['cards', 'list', '--json'], {
      ...env,
      NODE_EXTRA_CA_CERTS: upstream.sandbox.caFile,
    });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(JSON.parse(trusted.stdout)).toMatchObject({ data: expect.any(Array) });

    const untrusted = await runCliProcess(['cards', 'list', '--json'], {
      ...env,
      NODE_EXTRA_CA_CERTS: undefined,
    });
    expect(untrusted.code).toBe(4);
    expect(untrusted.stderr).toContain('is not signed by a trusted CA');
  }, 30_000);
});
