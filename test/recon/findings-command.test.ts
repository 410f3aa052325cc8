import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.js';
import { runCli } from '../../src/cli/program.js';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { ackFinding, listFindings, recordReconciliation } from '../../src/recon/findings-store.js';
import { useTempMirrors } from '../mirror/mirror-fixtures.js';
import { runOn } from './support/run-one.js';
import { openLedger } from './support/test-ledger.js';

const temp = useTempMirrors();

/** Run `cardsync ...args` in this process against the temp folder. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    untilStopped: () => new Promise(() => {}),
    signal: new AbortController().signal,
    env: {},
    cwd: temp.dir(),
    stderrIsTTY: false,
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

/** A mirror file with one reconciled finding; returns its path and the finding's fingerprint. */
function reconciled(): { db: string; fingerprint: string } {
  const l = openLedger(temp);
  l.issue(l.offering()).write({ balance: '1.00' });
  const run = recordReconciliation(l.db, {
    runId: 'r1',
    at: new Date().toISOString(),
    results: runOn(l),
  });
  return { db: l.db.name, fingerprint: run.current[0]?.fingerprint as string };
}

const errorLines = (stderr: string) =>
  stderr
    .trim()
    .split('\n')
    .filter((line) => !line.startsWith('(run with'));

describe('cardsync findings', () => {
  it('acks a finding until a date, with a reason', async () => {
    const { db, fingerprint } = reconciled();
    const result = await cli([
      'findings',
      'ack',
      fingerprint,
      '--reason',
      'known adjustment',
      '--until',
      '2099-01-01',
      '--db',
      db,
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`acknowledged ${fingerprint}`);
    const listed = await cli(['findings', 'list', '--json', '--db', db]);
    expect(JSON.parse(listed.stdout)[0].acknowledgement).toMatchObject({
      reason: 'known adjustment',
      until: '2099-01-01T00:00:00.000Z',
    });
  });

  it.each([
    [
      'an unknown fingerprint',
      (_f: string) => ['feedfacefeedface', '--reason', 'x', '--until', '2099-01-01'],
      /FINGERPRINT: no finding feedfacefeedface/,
    ],
    [
      'an empty fingerprint (an unset shell variable)',
      () => ['', '--reason', 'x', '--until', '2099-01-01'],
      /^cardsync: FINGERPRINT: expected a fingerprint as the reports print it, got ""$/,
    ],
    ['a missing reason', (f: string) => [f, '--until', '2099-01-01'], /--reason/],
    [
      'an empty reason',
      (f: string) => [f, '--reason', ' ', '--until', '2099-01-01'],
      /^cardsync: --reason/,
    ],
    ['a missing date', (f: string) => [f, '--reason', 'x'], /--until/],
    [
      'a bad date',
      (f: string) => [f, '--reason', 'x', '--until', '2099-02-30'],
      /^cardsync: --until: expected an ISO 8601 date/,
    ],
    [
      'a past date',
      (f: string) => [f, '--reason', 'x', '--until', '2001-01-01'],
      /^cardsync: --until: expected an instant after now/,
    ],
  ])('exits 2 with one line naming %s', async (_name, args, message) => {
    const { db, fingerprint } = reconciled();
    const result = await cli(['findings', 'ack', ...args(fingerprint), '--db', db]);
    expect(result.code).toBe(2);
    const lines = errorLines(result.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    const mirror = openMirror(db);
    try {
      expect(listFindings(mirror.db)[0]?.acknowledgement).toBeNull();
    } finally {
      await mirror.close();
    }
  });

  it('refuses a mirror that does not exist, creating nothing', async () => {
    const result = await cli(['findings', 'list', '--db', join(temp.dir(), 'none.sqlite')]);
    expect(result.code).toBe(2);
    expect(errorLines(result.stderr)).toEqual([
      expect.stringMatching(/^cardsync: --db: no mirror at/),
    ]);
  });

  it('lists an acknowledgement that has expired as expired, as open_findings does', async () => {
    const { db, fingerprint } = reconciled();
    const mirror = openMirror(db);
    try {
      const hourAgo = new Date(Date.now() - 3_600_000);
      ackFinding(mirror.db, fingerprint, {
        reason: 'known adjustment',
        until: new Date(hourAgo.getTime() + 60_000).toISOString(),
        now: hourAgo.toISOString(),
      });
      expect(
        mirror.db
          .prepare('SELECT ack_state, in_main_report FROM open_findings WHERE fingerprint = ?')
          .get(fingerprint),
      ).toEqual({ ack_state: 'expired', in_main_report: 1 });
    } finally {
      await mirror.close();
    }
    const human = await cli(['findings', 'list', '--db', db]);
    const line = human.stdout.split('\n').find((l) => l.startsWith(fingerprint)) as string;
    expect(line).not.toMatch(/ acknowledged until /);
    expect(line).toMatch(/ new \(acknowledgement expired \d{4}-\d\d-\d\dT[\d:.]+Z\) /);
  });

  it('lists open findings for a human, and as JSON', async () => {
    const { db, fingerprint } = reconciled();
    const human = await cli(['findings', 'list', '--db', db]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(fingerprint);
    expect(human.stdout).toContain('CARD_BALANCE_MISMATCH');
    const json = JSON.parse((await cli(['findings', 'list', '--json', '--db', db])).stdout);
    expect(
      json.map((f: { fingerprint: string; state: string }) => [f.fingerprint, f.state]),
    ).toEqual([[fingerprint, 'new']]);
  });

  it('lists them in the order of the reports: most serious first, then by check in reference order', async () => {
    const { db } = reconciled();
    const mirror = openMirror(db);
    try {
      const insert = mirror.db.prepare(
        `INSERT INTO findings (fingerprint, check_code, severity, merchant_id, detail, state,
           first_seen_at, first_seen_run_id, last_seen_at, last_seen_run_id)
         VALUES (?, ?, ?, 'm-0', 'detail', 'new', ?, 'r0', ?, 'r0')`,
      );
      const seen = new Date().toISOString();
      for (const [fingerprint, check, severity] of [
        ['f-info', 'UNJOURNALED_CARD', 'info'],
        ['f-negative', 'NEGATIVE_BALANCE', 'error'],
        ['f-order', 'ORDER_NOT_REFLECTED', 'error'],
      ])
        insert.run(fingerprint, check, severity, seen, seen);
    } finally {
      await mirror.close();
    }
    const json = JSON.parse((await cli(['findings', 'list', '--json', '--db', db])).stdout);
    const planted = json
      .map((f: { fingerprint: string }) => f.fingerprint)
      .filter((f: string) => f.startsWith('f-'));
    expect(planted).toEqual(['f-order', 'f-negative', 'f-info']);
  });
});
