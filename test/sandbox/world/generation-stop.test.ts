import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log/logger.js';
import { startSandbox } from '../../../src/sandbox/sandbox.js';
import { runCliProcess, startCliProcess } from '../../support/cli-process.js';

/** Far more than a test could wait for: a million cards take minutes to generate. */
const HUGE = { cards: 1_000_000, transactions: 1_000_000, days: 90, anomaliesPerCode: 0 };

/** Resolves once `condition` holds, checking every 50 ms; rejects after `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('stopping a world generation', () => {
  const dirs: string[] = [];
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cardsync-generation-stop-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('startSandbox rejects with the abort reason soon after its signal aborts, and the half-built state dir is refused later', async () => {
    const stateDir = await tempDir();
    const logger = createLogger({ level: 'silent' });
    const stop = new AbortController();
    const starting = startSandbox({ logger, stateDir, world: HUGE, signal: stop.signal });
    let abortedAt = Number.NaN;
    setTimeout(() => {
      abortedAt = Date.now();
      stop.abort();
    }, 500);
    const outcome = await starting.then(
      () => 'started',
      (error: unknown) => error,
    );
    expect(outcome).toBe(stop.signal.reason);
    expect(Date.now() - abortedAt).toBeLessThan(5_000);

    await expect(startSandbox({ logger, stateDir, world: HUGE })).rejects.toMatchObject({
      code: 'SANDBOX_STATE_INCOMPLETE',
    });
  }, 30_000);

  it('startSandbox stopped while generating removes the state directory it created, so the next start is a fresh one', async () => {
    const fresh = join(await tempDir(), 'new-parent', 'state');
    const logger = createLogger({ level: 'silent' });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 500);
    const outcome = await startSandbox({
      logger,
      stateDir: fresh,
      world: HUGE,
      signal: stop.signal,
    }).then(
      () => 'started',
      (error: unknown) => error,
    );
    expect(outcome).toBe(stop.signal.reason);
    expect(existsSync(dirname(fresh))).toBe(false);
    const again = await startSandbox({ logger, stateDir: fresh });
    await again.close();
  }, 30_000);

  it('cardsync sandbox stops within seconds with exit 0 on SIGTERM while generating, and refuses the half-built state dir with exit 2', async () => {
    const stateDir = await tempDir();
    const world = [
      '--cards',
      String(HUGE.cards),
      '--transactions',
      String(HUGE.transactions),
      '--state-dir',
      stateDir,
    ];
    const cli = startCliProcess(['sandbox', '--seed', 'generation-stop', ...world]);
    try {
      await until(() => cli.stderr().includes('generating world'), 20_000);
      // Let generation get well under way: its loop, not its setup, must notice the signal.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const signalled = Date.now();
      cli.child.kill('SIGTERM');
      expect(await cli.exited()).toBe(0);
      // Well before the generation could have ended (a million cards: most of a minute on two
      // cores), with room for a machine slowed by other work (6.4 s seen beside four others).
      expect(Date.now() - signalled).toBeLessThan(20_000);
    } finally {
      if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
    }
    expect(cli.stdout()).toBe('');
    expect(cli.stderr()).toContain('stopped before the sandbox was ready');
    expect(cli.stderr()).not.toContain('world generated');

    const again = await runCliProcess(['sandbox', ...world]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`--state-dir ${stateDir}: the world generation`);
    expect(again.stdout).toBe('');
  }, 60_000);
});
