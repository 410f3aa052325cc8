import { readdirSync, readFileSync, utimesSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHECK_CODES } from '../../src/recon/check-code.js';
import { type JobMetrics, renderMetrics } from '../../src/runner/job-metrics.js';
import { writeMetricsFile } from '../../src/runner/metrics-file.js';
import { emptyMerchantResult, type SyncResult } from '../../src/sync/sync-result.js';
import { stored } from '../reports/report-support.js';
import { parsePrometheusText, sampleValue } from './prometheus-text.js';

const SYNC: SyncResult = {
  runId: 'r1',
  startedAt: '2026-11-21T02:00:00.000Z',
  finishedAt: '2026-11-21T02:00:10.000Z',
  cutoff: '2026-11-21T01:59:00.000Z',
  outcome: 'done',
  durationMs: 10_000,
  merchants: [
    {
      ...emptyMerchantResult('eu "main"\\x'),
      merchantId: 'mch_1',
      cards: {
        outcome: 'done',
        fetched: 100,
        inserted: 3,
        updated: 2,
        unchanged: 95,
        quarantined: 0,
      },
    },
  ],
};

const METRICS: JobMetrics = {
  command: 'run',
  startedAt: 1_795_000_000_000,
  finishedAt: 1_795_000_012_500,
  exitCode: 6,
  outcome: 'discrepancies',
  lastSuccessAt: 1_795_000_012_500,
  sync: SYNC,
  reconcile: {
    data: { syncRunId: 'r1', syncOutcome: 'done', complete: true, reason: null },
    reconciliation: {
      runId: 'r1',
      at: '2026-11-21T02:00:12.000Z',
      current: [
        stored('NEGATIVE_BALANCE', 'mch_1', { cardId: 'c1', detail: 'd' }),
        stored('NEGATIVE_BALANCE', 'mch_1', { cardId: 'c2', detail: 'd' }, { state: 'persisting' }),
      ],
      acknowledged: [],
      resolved: [stored('STALE_PENDING', 'mch_1', { transactionId: 't', detail: 'd' })],
    },
  },
};

describe('the metrics file', () => {
  it('parses as the text exposition format the textfile collector reads', () => {
    const samples = parsePrometheusText(renderMetrics(METRICS));
    expect(sampleValue(samples, 'cardsync_last_run_timestamp_seconds')).toBe(1_795_000_012.5);
    expect(sampleValue(samples, 'cardsync_last_run_duration_seconds')).toBe(12.5);
    expect(sampleValue(samples, 'cardsync_last_run_exit_code', { outcome: 'discrepancies' })).toBe(
      6,
    );
    expect(sampleValue(samples, 'cardsync_last_success_timestamp_seconds')).toBe(1_795_000_012.5);
    expect(samples.every((s) => s.labels.command === 'run')).toBe(true);
  });

  it('counts rows synced by merchant and resource, escaping label values', () => {
    const samples = parsePrometheusText(renderMetrics(METRICS));
    const cards = { source: 'eu "main"\\x', resource: 'cards' };
    expect(sampleValue(samples, 'cardsync_sync_rows', { ...cards, kind: 'read' })).toBe(100);
    expect(sampleValue(samples, 'cardsync_sync_rows', { ...cards, kind: 'new' })).toBe(3);
    expect(sampleValue(samples, 'cardsync_sync_rows', { ...cards, kind: 'changed' })).toBe(2);
    expect(sampleValue(samples, 'cardsync_sync_complete')).toBe(1);
  });

  it('gives findings for every check by severity and state, zero included', () => {
    const samples = parsePrometheusText(renderMetrics(METRICS));
    const findings = samples.filter((s) => s.name === 'cardsync_findings');
    expect(findings).toHaveLength(CHECK_CODES.length * 4);
    const count = (check: string, state: string) =>
      sampleValue(samples, 'cardsync_findings', { check, state });
    expect(count('NEGATIVE_BALANCE', 'current')).toBe(2);
    expect(count('NEGATIVE_BALANCE', 'new')).toBe(1);
    expect(count('STALE_PENDING', 'resolved')).toBe(1);
    expect(count('CARD_BALANCE_MISMATCH', 'current')).toBe(0);
    expect(
      sampleValue(samples, 'cardsync_findings', { check: 'STALE_PENDING', state: 'current' }),
    ).toBe(0);
    expect(findings.find((s) => s.labels.check === 'STALE_PENDING')?.labels.severity).toBe(
      'warning',
    );
  });

  it('leaves out what a run that stopped early does not know', () => {
    const samples = parsePrometheusText(
      renderMetrics({
        command: 'reconcile',
        startedAt: 1000,
        finishedAt: 2000,
        exitCode: 5,
        outcome: 'locked',
        lastSuccessAt: null,
      }),
    );
    expect(new Set(samples.map((s) => s.name))).toEqual(
      new Set([
        'cardsync_last_run_timestamp_seconds',
        'cardsync_last_run_duration_seconds',
        'cardsync_last_run_exit_code',
      ]),
    );
  });
});

describe('the test parser of the exposition format', () => {
  it.each([
    ['no final newline', 'a 1'],
    ['a duplicate series', 'a{x="1"} 1\na{x="1"} 2\n'],
    ['a bad escape', 'a{x="\\q"} 1\n'],
    ['a family split in two', 'a 1\nb 1\na{x="2"} 1\n'],
    ['TYPE after samples', 'a 1\n# TYPE a gauge\n'],
    ['a bad value', 'a 1,5\n'],
  ])('refuses %s', (_, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });
});

describe('writeMetricsFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cardsync-metrics-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const base = { command: 'run', startedAt: 0, exitCode: 0, outcome: 'ok' } as const;

  it('removes the temporary files a killed run left, once an hour old, and no others', async () => {
    const file = join(dir, 'cardsync.prom');
    const stale = join(dir, '.cardsync.prom.tmp-0badf00d');
    const fresh = join(dir, '.cardsync.prom.tmp-5ca1ab1e');
    const foreign = join(dir, '.other.prom.tmp-0badf00d');
    for (const path of [stale, fresh, foreign]) await writeFile(path, 'partial');
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(stale, twoHoursAgo, twoHoursAgo);
    utimesSync(foreign, twoHoursAgo, twoHoursAgo);
    writeMetricsFile(file, { ...base, finishedAt: 10_000, success: true });
    // A fresh one may be another run's, writing now; another file's are not this writer's.
    expect(readdirSync(dir).sort()).toEqual(
      ['.cardsync.prom.tmp-5ca1ab1e', '.other.prom.tmp-0badf00d', 'cardsync.prom'].sort(),
    );
  });

  it('carries the last success over a failed run, and moves it on the next success', () => {
    const file = join(dir, 'cardsync.prom');
    const last = () =>
      sampleValue(
        parsePrometheusText(readFileSync(file, 'utf8')),
        'cardsync_last_success_timestamp_seconds',
      );
    writeMetricsFile(file, { ...base, finishedAt: 10_000, success: true });
    expect(last()).toBe(10);
    writeMetricsFile(file, {
      ...base,
      finishedAt: 20_000,
      exitCode: 4,
      outcome: 'sync_incomplete',
      success: false,
    });
    expect(last()).toBe(10);
    expect(
      sampleValue(parsePrometheusText(readFileSync(file, 'utf8')), 'cardsync_last_run_exit_code'),
    ).toBe(4);
    writeMetricsFile(file, { ...base, finishedAt: 30_000, success: true });
    expect(last()).toBe(30);
  });

  it('has no last success when none is known, even over a foreign file', async () => {
    const file = join(dir, 'cardsync.prom');
    await writeFile(file, 'garbage\n');
    writeMetricsFile(file, {
      ...base,
      finishedAt: 5000,
      exitCode: 1,
      outcome: 'internal_error',
      success: false,
    });
    const samples = parsePrometheusText(readFileSync(file, 'utf8'));
    expect(sampleValue(samples, 'cardsync_last_success_timestamp_seconds')).toBeUndefined();
  });
});
