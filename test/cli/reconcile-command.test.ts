import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
} from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireMirrorLock } from '../../src/mirror/mirror-lock.js';
import { CHECK_CODES, SEVERITY_OF } from '../../src/recon/check-code.js';
import { Database } from '../../src/sqlite-driver.js';
import { syncWithJournals } from '../runner/runner-world.js';
import { runCliProcess, unprivilegedUser } from '../support/cli-process.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
import { messageLines, readCsv } from './job-fixture.js';

interface ReconcileJson {
  runId: string;
  exitCode: number;
  reportDir: string;
  counts: {
    current: number;
    new: number;
    persisting: number;
    acknowledged: number;
    resolved: number;
  };
  byCheck: Record<string, { current: number; enabled: boolean }>;
}

const WORLD = { cards: 60, transactions: 600, days: 20, anomaliesPerCode: 1 } as const;

describe('cardsync reconcile', () => {
  let w: SyncWorld;
  let env: Record<string, string>;
  let first: ReconcileJson;
  const reportsDir = () => join(w.dir, 'reports');
  const reconcile = async (args: string[] = [], extra: Record<string, string> = {}) => {
    const result = await runCliProcess(['reconcile', '--json', ...args], { ...env, ...extra });
    return { ...result, json: result.stdout ? (JSON.parse(result.stdout) as ReconcileJson) : null };
  };
  const discrepancies = (r: ReconcileJson) => readCsv(join(r.reportDir, 'discrepancies.csv'));
  let planted: { check: string; merchantId: string }[];
  const plantedOf = (check: string) => planted.filter((p) => p.check === check).length;

  beforeAll(async () => {
    w = await startSyncWorld({
      seed: 'reconcile-cli',
      merchants: 2,
      currencies: ['USD', 'JPY'],
      world: WORLD,
    });
    env = { CARDSYNC_DB: w.mirrorFile, CARDSYNC_REPORTS_DIR: join(w.dir, 'reports') };
    planted = JSON.parse(readFileSync(w.t.sandbox.groundTruthFile!, 'utf8')).findings;
    await syncWithJournals(w);
    const result = await reconcile();
    expect(result.code, result.stderr).toBe(0);
    first = result.json!;
  }, 60_000);
  afterAll(async () => w?.close());

  it('reconciles both merchants and writes the reports, latest pointing at them', () => {
    expect(first.counts).toMatchObject({ new: first.counts.current, persisting: 0, resolved: 0 });
    expect(first.counts.current).toBe(planted.length);
    expect(new Set(discrepancies(first).map((r) => r.merchant_id))).toEqual(
      new Set(planted.map((p) => p.merchantId)),
    );
    for (const check of CHECK_CODES)
      expect(first.byCheck[check]?.current, check).toBe(plantedOf(check));
    expect(readlinkSync(join(reportsDir(), 'latest'))).toBe(first.runId);
  });

  it('prints a human summary without --json', async () => {
    const result = await runCliProcess(['reconcile'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^reconcile \S+: \d+ findings \(0 new, \d+ persisting\), 0 resolved/,
    );
    expect(result.stdout).toMatch(/data: complete/);
    expect(result.stdout).toMatch(
      new RegExp(
        `^ {2}error {4}CARD_BALANCE_MISMATCH +${plantedOf('CARD_BALANCE_MISMATCH')}$`,
        'm',
      ),
    );
    expect(result.stdout).toMatch(/reports: .*\(latest\)$/m);
  });

  it('finds the same findings again, all persisting, with their first sighting kept', async () => {
    const again = (await reconcile()).json!;
    expect(again.counts).toMatchObject({ current: first.counts.current, new: 0, resolved: 0 });
    const before = discrepancies(first);
    const after = discrepancies(again);
    expect(after.map((r) => r.fingerprint)).toEqual(before.map((r) => r.fingerprint));
    expect(after.map((r) => r.first_seen_at)).toEqual(before.map((r) => r.first_seen_at));
    expect(new Set(after.map((r) => r.state))).toEqual(new Set(['persisting']));
  });

  it('exits 6 with --fail-on when findings at or above the severity remain', async () => {
    const errors = await reconcile(['--fail-on', 'error']);
    expect(errors.code).toBe(6);
    expect(errors.json?.exitCode).toBe(6);
    expect(messageLines(errors.stderr)).toEqual([
      expect.stringMatching(/discrepancies at or above error/),
    ]);
    const errorChecksOff = CHECK_CODES.filter((c) => SEVERITY_OF[c] === 'error').flatMap((c) => [
      '--check',
      `${c}=off`,
    ]);
    expect((await reconcile(['--fail-on', 'error', ...errorChecksOff])).code).toBe(0);
    expect((await reconcile(['--fail-on', 'warning', ...errorChecksOff])).code).toBe(6);
    const warningChecksOff = { CARDSYNC_RECON_CHECKS: 'STALE_PENDING=off,PRECISION_VIOLATION=off' };
    const info = await reconcile(['--fail-on', 'warning', ...errorChecksOff], warningChecksOff);
    expect(info.code, info.stderr).toBe(0);
    expect(info.json?.byCheck.UNJOURNALED_CARD?.current).toBeGreaterThan(0);
  }, 60_000);

  it('counts in the line of exit 6 only the findings at or above --fail-on', async () => {
    const result = await reconcile(['--fail-on', 'error']);
    expect(result.code).toBe(6);
    const rows = discrepancies(result.json!);
    const errors = rows.filter((r) => r.severity === 'error').length;
    expect(errors).toBeLessThan(rows.length);
    expect(messageLines(result.stderr)).toEqual([
      `cardsync: discrepancies at or above error (--fail-on error): ${errors} unacknowledged findings in the report`,
    ]);
  });

  it('leaves the findings of a check turned off as they were, and says it did not run', async () => {
    const result = (await reconcile(['--check', 'unjournaled_card=off'])).json!;
    expect(result.byCheck.UNJOURNALED_CARD).toMatchObject({ enabled: false, current: 0 });
    expect(result.counts.resolved).toBe(0);
    const summary = readCsv(join(result.reportDir, 'summary.csv'));
    expect(
      summary.find((r) => r.section === 'coverage' && r.check === 'UNJOURNALED_CARD'),
    ).toMatchObject({ measure: 'not_run', reason: 'turned off by configuration' });
    // Still open in the store: back on, they persist rather than start again as new.
    const back = (await reconcile()).json!;
    const rows = discrepancies(back).filter((r) => r.check === 'UNJOURNALED_CARD');
    expect(rows).toHaveLength(plantedOf('UNJOURNALED_CARD'));
    expect(new Set(rows.map((r) => r.state))).toEqual(new Set(['persisting']));
  });

  it('lists findings that no longer hold in resolved.csv, and brings them back as new', async () => {
    const relaxed = (await reconcile(['--stale-after-hours', '8760'])).json!;
    const stalePlanted = plantedOf('STALE_PENDING');
    expect(stalePlanted).toBeGreaterThan(0);
    expect(relaxed.counts.resolved).toBe(stalePlanted);
    const resolved = readCsv(join(relaxed.reportDir, 'resolved.csv'));
    expect(resolved.map((r) => [r.check, r.state])).toEqual(
      Array.from({ length: stalePlanted }, () => ['STALE_PENDING', 'resolved']),
    );
    expect(resolved.every((r) => r.resolved_at === resolved[0]?.resolved_at)).toBe(true);
    expect(discrepancies(relaxed).some((r) => r.check === 'STALE_PENDING')).toBe(false);
    const back = (await reconcile()).json!;
    const stale = discrepancies(back).filter((r) => r.check === 'STALE_PENDING');
    expect(stale.map((r) => r.state)).toEqual(Array.from({ length: stalePlanted }, () => 'new'));
  });

  it('moves an acknowledged finding to acknowledged.csv', async () => {
    const [target] = discrepancies(first).filter((r) => r.check === 'NEGATIVE_BALANCE');
    const fingerprint = target?.fingerprint ?? '';
    const acked = await runCliProcess(
      ['findings', 'ack', fingerprint, '--reason', 'bank fee, ticket 118', '--until', '2099-01-01'],
      env,
    );
    expect(acked.code, acked.stderr).toBe(0);
    const result = (await reconcile()).json!;
    expect(result.counts.acknowledged).toBe(1);
    expect(discrepancies(result).map((r) => r.fingerprint)).not.toContain(fingerprint);
    expect(readCsv(join(result.reportDir, 'acknowledged.csv'))).toMatchObject([
      { fingerprint, ack_reason: 'bank fee, ticket 118' },
    ]);
  });

  it('exits 5 while another run holds the lock', async () => {
    const mirror = w.openMirror();
    const lock = acquireMirrorLock(mirror.db, { runId: 'nightly-in-progress' });
    try {
      const result = await reconcile();
      expect(result.code).toBe(5);
      expect(messageLines(result.stderr)).toEqual([expect.stringMatching(/nightly-in-progress/)]);
    } finally {
      lock.release();
      await mirror.close();
    }
  });

  // Root passes every permission check: the CLI runs as nobody then, owning the world's files.
  const runAs = unprivilegedUser();
  it.skipIf(runAs === null)(
    'exits 2 when the reports folder cannot be entered (no search permission), recording nothing',
    async () => {
      const user = runAs?.uid;
      const unsearchable = join(w.dir, 'reports-without-x');
      mkdirSync(unsearchable);
      if (user !== undefined)
        for (const path of [
          w.dir,
          ...readdirSync(w.dir, { recursive: true }).map((p) => join(w.dir, String(p))),
        ])
          chownSync(path, user, user);
      chmodSync(unsearchable, 0o600);
      const runs = () => {
        const mirror = w.openMirror();
        try {
          return mirror.db.prepare('SELECT count(*) AS n FROM recon_runs').get();
        } finally {
          void mirror.close();
        }
      };
      const before = runs();
      const result = await runCliProcess(
        ['reconcile'],
        { ...env, CARDSYNC_REPORTS_DIR: unsearchable },
        user === undefined ? {} : { user },
      );
      expect(result.code, result.stderr).toBe(2);
      expect(messageLines(result.stderr)).toEqual([
        expect.stringMatching(/^cardsync: CARDSYNC_REPORTS_DIR: .*reports-without-x \(EACCES\)$/),
      ]);
      expect(runs()).toEqual(before);
      chmodSync(unsearchable, 0o700);
      expect(readdirSync(unsearchable)).toEqual([]);
    },
  );

  describe('exits 2 naming the bad value, writing nothing', () => {
    const cases: [string, string[], Record<string, string>, RegExp][] = [
      [
        'a missing mirror',
        [],
        { CARDSYNC_DB: '/nonexistent/mirror.sqlite' },
        /^cardsync: CARDSYNC_DB: no mirror/,
      ],
      [
        'a grace that is not a number',
        ['--grace-minutes', 'an hour'],
        {},
        /--grace-minutes: expected a whole number/,
      ],
      ['an unknown check', ['--check', 'NOPE=off'], {}, /--check: expected a check code/],
      [
        'a check neither on nor off',
        ['--check', 'STALE_PENDING=maybe'],
        {},
        /--check: expected CODE=on or CODE=off/,
      ],
      [
        'a tolerance for a check without one',
        ['--tolerance', 'STALE_PENDING=5'],
        {},
        /--tolerance: expected one of/,
      ],
      [
        'a bad rounding',
        ['--deposit-fee-rounding', 'sideways'],
        {},
        /--deposit-fee-rounding: expected one of half-up/,
      ],
      [
        'a bad variable',
        [],
        { CARDSYNC_RECON_STALE_AFTER_HOURS: 'soon' },
        /CARDSYNC_RECON_STALE_AFTER_HOURS/,
      ],
      [
        'a bad tolerance variable',
        [],
        { CARDSYNC_RECON_TOLERANCES: 'OVER_REFUND' },
        /CARDSYNC_RECON_TOLERANCES: expected CODE=N/,
      ],
      ['an unknown severity', ['--fail-on', 'info'], {}, /--fail-on/],
    ];
    for (const [name, args, extra, message] of cases)
      it(name, async () => {
        const elsewhere = join(w.dir, `reports-${name.replaceAll(' ', '-')}`);
        const result = await reconcile(args, { CARDSYNC_REPORTS_DIR: elsewhere, ...extra });
        expect(result.code, result.stderr).toBe(2);
        expect(messageLines(result.stderr)).toEqual([expect.stringMatching(message)]);
        expect(existsSync(elsewhere)).toBe(false);
      });

    it('a mirror that is not SQLite, before the reports folder is created', async () => {
      const notes = join(w.dir, 'notes.txt');
      await writeFile(notes, 'not a database, just notes\n');
      const elsewhere = join(w.dir, 'reports-of-notes');
      const result = await reconcile([], { CARDSYNC_DB: notes, CARDSYNC_REPORTS_DIR: elsewhere });
      expect(result.code, result.stderr).toBe(2);
      expect(messageLines(result.stderr)).toEqual([expect.stringMatching(/not a database/)]);
      expect(existsSync(elsewhere)).toBe(false);
    });

    it('a SQLite database that is not a mirror, left byte for byte as it was', async () => {
      const other = join(w.dir, 'other-app.sqlite');
      const db = new Database(other);
      db.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')");
      db.close();
      const before = readFileSync(other);
      const elsewhere = join(w.dir, 'reports-of-other-app');
      const result = await reconcile([], { CARDSYNC_DB: other, CARDSYNC_REPORTS_DIR: elsewhere });
      expect(result.code, result.stderr).toBe(2);
      expect(messageLines(result.stderr)).toEqual([
        expect.stringMatching(
          /^cardsync: CARDSYNC_DB: .*other-app\.sqlite is not a cardsync mirror/,
        ),
      ]);
      expect(readFileSync(other)).toEqual(before);
      expect(existsSync(`${other}-wal`)).toBe(false);
      expect(existsSync(elsewhere)).toBe(false);
    });

    it('a bad recon section in the config file, by its key', async () => {
      const file = join(w.dir, 'cardsync.json');
      for (const [recon, key] of [
        [{ graceMinutes: 'x' }, /recon\.graceMinutes: expected a whole number/],
        [{ checks: { NOPE: false } }, /recon\.checks\.NOPE: expected a check code/],
        [{ tolerances: { OVER_REFUND: -1 } }, /recon\.tolerances\.OVER_REFUND/],
        [{ depositFeeRounding: 'sideways' }, /recon\.depositFeeRounding: expected one of/],
      ] as const) {
        await writeFile(file, JSON.stringify({ recon }));
        const result = await reconcile(['--config', file]);
        expect(result.code, result.stderr).toBe(2);
        expect(messageLines(result.stderr)).toEqual([expect.stringMatching(key)]);
      }
    }, 30_000);
  });

  it('takes settings from the config file under flags and variables', async () => {
    const file = join(w.dir, 'layered.json');
    await writeFile(
      file,
      JSON.stringify({ recon: { staleAfterHours: 8760, checks: { UNJOURNALED_CARD: false } } }),
    );
    const fromFile = (await reconcile(['--config', file])).json!;
    expect(fromFile.byCheck.STALE_PENDING?.current).toBe(0);
    expect(fromFile.byCheck.UNJOURNALED_CARD?.enabled).toBe(false);
    const overridden = (
      await reconcile(['--config', file, '--check', 'UNJOURNALED_CARD=on'], {
        CARDSYNC_RECON_STALE_AFTER_HOURS: '168',
      })
    ).json!;
    expect(overridden.byCheck.STALE_PENDING?.current).toBe(plantedOf('STALE_PENDING'));
    expect(overridden.byCheck.UNJOURNALED_CARD?.enabled).toBe(true);
    expect(readdirSync(reportsDir()).length).toBeGreaterThan(5);
  });
});
