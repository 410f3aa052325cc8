import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finished } from '../support/cli-process.js';
import { messageLines } from './job-fixture.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('npm start (the demo; prestart builds it)', () => {
  let base: string;
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'cardsync-npm-start-'));
  });
  afterAll(async () => {
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('stops the demo when SIGTERM is sent to npm alone, not leaving it running', async () => {
    // npm passes the signal to the script's shell; a shell that forks the demo dies of it and
    // leaves the demo running, reparented, to the end of its night. Without prestart (the build,
    // done before the tests): rewriting dist/ would race the other tests' processes.
    const npm = spawn(
      'npm',
      [
        'start',
        '--ignore-scripts',
        '--silent',
        '--',
        '--dir',
        join(base, 'demo'),
        '--anomalies',
        '0',
      ],
      { cwd: ROOT, stdio: 'pipe' },
    );
    let stderr = '';
    npm.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('"msg":"generating world"')) npm.kill('SIGTERM');
    });
    // The pipes close once every process holding them has ended: npm and the demo.
    const result = await finished(npm);
    expect(result.stdout).toBe('');
    expect(messageLines(result.stderr)).toEqual(['demo: stopped before the nightly job started']);
  }, 180_000);
});
