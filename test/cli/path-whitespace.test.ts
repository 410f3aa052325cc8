import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess } from '../support/cli-process.js';
import { type JobFixture, messageLines, startJobFixture } from './job-fixture.js';

/**
 * A path setting with a space around it (a variable pasted from a document, an env file that
 * keeps what follows `=`): SQLite opens `mirror.sqlite ` as `mirror.sqlite`, while the checks
 * before it take the name as given, so `sync` wrote to the mirror and `reconcile` said there was
 * none. Such a path is refused, naming its setting, before anything is touched.
 */
describe('a path setting with a space around it', () => {
  let f: JobFixture;
  beforeAll(async () => {
    f = await startJobFixture({
      seed: 'path-whitespace',
      world: { cards: 5, transactions: 20, days: 3, anomaliesPerCode: 0 },
    });
    const first = await runCliProcess(['sync'], f.env);
    expect(first.code, first.stderr).toBe(0);
  });
  afterAll(async () => f?.close());

  it.each([
    ['sync', 'CARDSYNC_DB', (db: string) => `${db} `],
    ['reconcile', 'CARDSYNC_DB', (db: string) => `${db} `],
    ['findings', 'CARDSYNC_DB', (db: string) => ` ${db}`],
  ])(
    '%s refuses %s with a space around it, exit 2, and touches nothing',
    async (command, variable, spaced) => {
      const before = readdirSync(f.dir, { recursive: true }).sort();
      const args = command === 'findings' ? ['findings', 'list'] : [command];
      const result = await runCliProcess(args, { ...f.env, [variable]: spaced(f.db) });
      expect(result.code, result.stderr).toBe(2);
      expect(messageLines(result.stderr)).toEqual([
        `cardsync: ${variable}: expected a path without spaces around it, got ${JSON.stringify(spaced(f.db))}`,
      ]);
      expect(readdirSync(f.dir, { recursive: true }).sort()).toEqual(before);
    },
  );

  it('refuses --reports-dir with a space after it, instead of writing the reports to a new folder', async () => {
    const before = readdirSync(f.dir, { recursive: true }).sort();
    const result = await runCliProcess(['reconcile', '--reports-dir', `${f.reportsDir} `], f.env);
    expect(result.code, result.stderr).toBe(2);
    expect(messageLines(result.stderr)).toEqual([
      `cardsync: --reports-dir: expected a path without spaces around it, got ${JSON.stringify(`${f.reportsDir} `)}`,
    ]);
    expect(readdirSync(f.dir, { recursive: true }).sort()).toEqual(before);
  });
});
