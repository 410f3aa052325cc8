import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireMirrorLock } from '../../src/mirror/mirror-lock.js';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { CHECK_CODES } from '../../src/recon/check-code.js';
import { parsePrometheusText, sampleValue } from '../runner/prometheus-text.js';
import { runCliProcess } from '../support/cli-process.js';
import { type JobFixture, messageLines, readCsv, startJobFixture } from './job-fixture.js';

const WORLD = { cards: 50, transactions: 500, days: 20, anomaliesPerCode: 1 } as const;

interface RunJson {
  runId: string;
  exitCode: number;
  sync: { runId: string; outcome: string };
  reconcile: {
    runId: string;
    reportDir: string;
    data: { complete: boolean; syncOutcome: string };
    counts: { current: number; new: number; persisting: number; resolved: number };
  } | null;
}

describe('cardsync run on a world with planted anomalies', () => {
  let f: JobFixture;
  let first: RunJson;
  const metrics = () => parsePrometheusText(readFileSync(f.metricsFile, 'utf8'));
  const folders = () =>
    readdirSync(f.reportsDir)
      .filter((n) => n !== 'latest')
      .sort();

  beforeAll(async () => {
    f = await startJobFixture({ seed: 'run-cli', world: WORLD });
    const imported = await runCliProcess(
      ['orders', 'import', f.journalFile, '--merchant', f.merchantId],
      f.env,
    );
    expect(imported.code, imported.stderr).toBe(0);
    const run = await runCliProcess(['run', '--json'], f.env);
    expect(run.code, run.stderr).toBe(0);
    first = JSON.parse(run.stdout) as RunJson;
    expect(run.stdout + run.stderr).not.toContain(f.env.CARDSYNC_API_KEY);
  }, 60_000);
  afterAll(async () => f?.close());

  it('syncs and reconciles under one run id', () => {
    expect(first.sync).toMatchObject({ runId: first.runId, outcome: 'done' });
    expect(first.reconcile).toMatchObject({ runId: first.runId, data: { complete: true } });
    const mirror = openMirror(f.db);
    try {
      expect(mirror.db.prepare('SELECT command, outcome, exit_code FROM sync_runs').all()).toEqual([
        { command: 'run', outcome: 'done', exit_code: 0 },
      ]);
      expect(mirror.db.prepare('SELECT run_id FROM recon_runs').pluck().all()).toEqual([
        first.runId,
      ]);
    } finally {
      void mirror.close();
    }
  });

  it('writes the report folder, with latest pointing at it', () => {
    const folder = join(f.reportsDir, first.runId);
    expect(first.reconcile?.reportDir).toBe(folder);
    expect(readdirSync(folder).sort()).toEqual([
      'acknowledged.csv',
      'discrepancies.csv',
      'resolved.csv',
      'summary.csv',
    ]);
    expect(readlinkSync(join(f.reportsDir, 'latest'))).toBe(first.runId);
  });

  it('reports exactly the planted anomalies, one row each, all new', () => {
    const rows = readCsv(join(f.reportsDir, first.runId, 'discrepancies.csv'));
    const planted = f.planted();
    expect(planted.length).toBeGreaterThan(10);
    expect(rows.map((r) => r.check).sort()).toEqual(planted.map((p) => p.check).sort());
    for (const p of planted) {
      const mine = rows.filter((r) => r.check === p.check);
      // Where the manifest and the row both name an id, it is the same, and one at least is.
      const pairs = (r: Record<string, string>) =>
        (
          [
            [p.cardId, r.card_id],
            [p.transactionId, r.transaction_id],
            [p.orderNo, r.order_no],
          ] as const
        ).filter(([a, b]) => a !== undefined && b !== '');
      const match = mine.find((r) => pairs(r).length > 0 && pairs(r).every(([a, b]) => a === b));
      expect(match, `${p.check} ${JSON.stringify(p)}`).toBeDefined();
    }
    expect(new Set(rows.map((r) => r.state))).toEqual(new Set(['new']));
    expect(new Set(rows.map((r) => r.merchant_id))).toEqual(new Set([f.merchantId]));
  });

  it('lists every check in summary.csv with the coverage of each', () => {
    const summary = readCsv(join(f.reportsDir, first.runId, 'summary.csv'));
    const listed = new Set(summary.filter((r) => r.section === 'findings').map((r) => r.check));
    for (const check of CHECK_CODES) expect(listed).toContain(check);
    const covered = new Set(summary.filter((r) => r.section === 'coverage').map((r) => r.check));
    expect([...covered].sort()).toEqual([...CHECK_CODES].sort());
    expect(summary.find((r) => r.measure === 'data_complete')?.value).toBe('true');
  });

  it('leaves a metrics file node_exporter can read', () => {
    const samples = metrics();
    expect(sampleValue(samples, 'cardsync_last_run_exit_code', { command: 'run' })).toBe(0);
    expect(sampleValue(samples, 'cardsync_last_success_timestamp_seconds')).toBeGreaterThan(
      Date.now() / 1000 - 120,
    );
    expect(
      sampleValue(samples, 'cardsync_sync_rows', { resource: 'cards', kind: 'read' }),
    ).toBeGreaterThan(0);
    const current = samples
      .filter((s) => s.name === 'cardsync_findings' && s.labels.state === 'current')
      .reduce((sum, s) => sum + s.value, 0);
    expect(current).toBe(f.planted().length);
  });

  it('finds the same findings, all persisting, when run again with nothing new; --fail-on error exits 6', async () => {
    const again = await runCliProcess(['run', '--fail-on', 'error'], f.env);
    expect(again.code, again.stderr).toBe(6);
    expect(messageLines(again.stderr)).toEqual([
      expect.stringMatching(/^cardsync: discrepancies at or above error \(--fail-on error\)/),
    ]);
    expect(again.stdout).toMatch(/^reconcile \S+: \d+ findings \(0 new, \d+ persisting\)/m);
    const latest = readlinkSync(join(f.reportsDir, 'latest'));
    expect(latest).not.toBe(first.runId);
    const before = readCsv(join(f.reportsDir, first.runId, 'discrepancies.csv'));
    const after = readCsv(join(f.reportsDir, latest, 'discrepancies.csv'));
    expect(after.map((r) => r.fingerprint)).toEqual(before.map((r) => r.fingerprint));
    expect(new Set(after.map((r) => r.state))).toEqual(new Set(['persisting']));
    expect(after.map((r) => r.first_seen_at)).toEqual(before.map((r) => r.first_seen_at));
    expect(readCsv(join(f.reportsDir, latest, 'resolved.csv'))).toEqual([]);
    const samples = metrics();
    expect(sampleValue(samples, 'cardsync_last_run_exit_code', { outcome: 'discrepancies' })).toBe(
      6,
    );
  }, 30_000);

  it('exits 5 naming the holder while another run holds the lock, and writes no report', async () => {
    const before = folders();
    const mirror = openMirror(f.db);
    const lock = acquireMirrorLock(mirror.db, { runId: 'held-by-test' });
    try {
      const run = await runCliProcess(['run'], f.env);
      expect(run.code, run.stderr).toBe(5);
      expect(messageLines(run.stderr)).toEqual([expect.stringMatching(/held-by-test/)]);
    } finally {
      lock.release();
      await mirror.close();
    }
    expect(folders()).toEqual(before);
    expect(sampleValue(metrics(), 'cardsync_last_run_exit_code', { outcome: 'locked' })).toBe(5);
  }, 30_000);

  it('exits 1 when the report cannot be written, its metrics still showing the sync that ran', async () => {
    const reportsDir = join(f.dir, 'blocked-reports');
    const metricsFile = join(f.dir, 'textfile', 'blocked.prom');
    mkdirSync(reportsDir);
    writeFileSync(join(reportsDir, 'latest'), 'not a link\n');
    const run = await runCliProcess(['run'], {
      ...f.env,
      CARDSYNC_REPORTS_DIR: reportsDir,
      CARDSYNC_METRICS_FILE: metricsFile,
    });
    expect(run.code, run.stderr).toBe(1);
    expect(messageLines(run.stderr)).toEqual([expect.stringMatching(/^cardsync: reports: /)]);
    const samples = parsePrometheusText(readFileSync(metricsFile, 'utf8'));
    expect(sampleValue(samples, 'cardsync_last_run_exit_code', { outcome: 'internal_error' })).toBe(
      1,
    );
    expect(sampleValue(samples, 'cardsync_sync_complete', { command: 'run' })).toBe(1);
    expect(
      sampleValue(samples, 'cardsync_sync_rows', { resource: 'cards', kind: 'read' }),
    ).toBeGreaterThan(0);
  }, 30_000);

  it('exits 3 when the key is refused, and still reconciles what the mirror holds', async () => {
    const run = await runCliProcess(['run', '--json'], {
      ...f.env,
      CARDSYNC_API_KEY: 'sk_test_wrong',
    });
    expect(run.code, run.stderr).toBe(3);
    expect(messageLines(run.stderr)).toEqual([
      'cardsync: the upstream refused the key of default (401), read from CARDSYNC_API_KEY; the reconciliation ran on what the mirror holds, and its reports say the data is incomplete',
    ]);
    expect(run.stdout + run.stderr).not.toContain('sk_test_wrong');
    const result = JSON.parse(run.stdout) as RunJson;
    expect(result.sync.outcome).toBe('unauthorized');
    expect(result.reconcile?.data).toMatchObject({ complete: false, syncOutcome: 'unauthorized' });
    const summary = readCsv(join(result.reconcile!.reportDir, 'summary.csv'));
    expect(summary.find((r) => r.measure === 'data_complete')).toMatchObject({
      value: 'false',
      reason: expect.stringMatching(/refused the key/),
    });
  }, 30_000);

  it('exits 2 naming a bad setting before anything is written', async () => {
    const before = folders();
    const metricsBefore = readFileSync(f.metricsFile, 'utf8');
    for (const [args, env, key] of [
      [['--grace-minutes', 'soon'], {}, '--grace-minutes'],
      [['--tolerance', 'OVER_REFUND=lots'], {}, '--tolerance'],
      [[], { CARDSYNC_RECON_CHECKS: 'NOT_A_CHECK=off' }, 'CARDSYNC_RECON_CHECKS'],
      [['--fail-on', 'fatal'], {}, '--fail-on'],
    ] as const) {
      const run = await runCliProcess(['run', ...args], { ...f.env, ...env });
      expect(run.code, run.stderr).toBe(2);
      expect(messageLines(run.stderr)).toEqual([expect.stringContaining(key)]);
    }
    expect(folders()).toEqual(before);
    expect(readFileSync(f.metricsFile, 'utf8')).toBe(metricsBefore);
  }, 30_000);

  it('exits 2 on a bad path before it creates any folder: reports, metrics or mirror', async () => {
    const notes = join(f.dir, 'notes.txt');
    writeFileSync(notes, 'not a database, just notes\n');
    const reports = join(f.dir, 'new-reports');
    const mirror = join(f.dir, 'new-data', 'mirror.sqlite');
    for (const [args, message] of [
      [['--metrics-file', join(notes, 'x.prom'), '--db', mirror], /--metrics-file.*ENOTDIR/],
      [['--db', notes], /^cardsync: --db: .*not a database/],
    ] as const) {
      const run = await runCliProcess(['run', '--reports-dir', reports, ...args], f.env);
      expect(run.code, run.stderr).toBe(2);
      expect(messageLines(run.stderr)).toEqual([expect.stringMatching(message)]);
      expect(existsSync(reports)).toBe(false);
      expect(existsSync(dirname(mirror))).toBe(false);
    }
  }, 30_000);
});
