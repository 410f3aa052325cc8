import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliWithFullStream } from '../support/cli-process.js';
import { type JobFixture, logLines, messageLines, startJobFixture } from './job-fixture.js';

/**
 * `cardsync ...args` with stdout on /dev/full, where every write fails with ENOSPC: output
 * redirected to a file on a full disk (`cardsync findings list > out.txt`, a crontab's `>>`).
 */
async function runWithFullStdout(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> {
  const { code, other } = await runCliWithFullStream('stdout', args, env);
  return { code, stderr: other };
}

const LOST = 'cardsync: cannot write stdout: ENOSPC: no space left on device, write';

describe.skipIf(!existsSync('/dev/full'))(
  'a command whose stdout cannot be written (ENOSPC)',
  () => {
    let f: JobFixture;

    beforeAll(async () => {
      f = await startJobFixture({
        world: { cards: 20, transactions: 150, days: 10, anomaliesPerCode: 1 },
      });
    }, 60_000);
    afterAll(async () => f?.close());

    it('ends `openapi` with exit 1 and one line saying so, not a stack trace', async () => {
      const result = await runWithFullStdout(['openapi']);
      expect(messageLines(result.stderr)).toEqual([LOST]);
      expect(result.code).toBe(1);
    });

    it('ends `run` with its run finished line, then exit 1 and the one line', async () => {
      const result = await runWithFullStdout(['run'], f.env);
      expect(messageLines(result.stderr)).toEqual([LOST]);
      expect(result.stderr.trimEnd().endsWith(LOST)).toBe(true);
      const finished = logLines<{ msg: string }>(result.stderr).filter(
        (l) => l.msg === 'run finished',
      );
      expect(finished).toHaveLength(1);
      expect(result.code).toBe(1);
    }, 60_000);
  },
);
