import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { runCliThroughHead } from '../support/cli-process.js';

describe('a reader that closes stdout early (cardsync ... | head)', () => {
  let dir: string;
  let db: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cardsync-closed-stdout-'));
    db = join(dir, 'mirror.sqlite');
    const mirror = openMirror(db);
    // Enough findings that the list fills the pipe, as a real night's can.
    mirror.db
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
         INSERT INTO findings (fingerprint, check_code, severity, merchant_id, card_id, detail,
           state, first_seen_at, first_seen_run_id, last_seen_at, last_seen_run_id)
         SELECT printf('%016x', i), 'UNJOURNALED_CARD', 'info', 'mch_1', printf('card_%d', i),
           'a card with no ISSUE order in the journal', 'new', '2026-01-01T00:00:00.000Z', 'r1',
           '2026-01-01T00:00:00.000Z', 'r1' FROM n`,
      )
      .run();
    await mirror.close();
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('ends `openapi` quietly with exit 0, without a stack trace', async () => {
    // The document (about 175 KB) fills the pipe: its writes go on after head has left.
    const result = await runCliThroughHead(['openapi'], ['-c', '100']);
    expect(result.stdout).toHaveLength(100);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('keeps `--help` at exit 0', async () => {
    const result = await runCliThroughHead(['--help'], ['-1']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('ends `findings list` quietly with exit 0', async () => {
    const result = await runCliThroughHead(['findings', 'list', '--db', db], ['-1']);
    expect(result.stdout).toMatch(/UNJOURNALED_CARD/);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});
