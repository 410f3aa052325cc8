import { CHECK_CODES, SEVERITY_OF } from '../recon/check-code.js';
import type { Reconciliation } from '../recon/findings-store.js';
import type { StoredFinding } from '../recon/stored-finding.js';
import type { DataStatus } from '../reports/data-status.js';
import type { SyncResult } from '../sync/sync-result.js';

/** What one run of a command leaves for monitoring. */
export interface JobMetrics {
  /** `run` or `reconcile`: a label on every series, so both may feed one node_exporter. */
  readonly command: string;
  /** Unix milliseconds. */
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly exitCode: number;
  /** The exit code's name: `ok`, `discrepancies`, `sync_incomplete`, `locked`, ... */
  readonly outcome: string;
  /** When the command last succeeded (exit 0 or 6), this run or an earlier one; null if never known. */
  readonly lastSuccessAt: number | null;
  readonly sync?: SyncResult | null;
  readonly reconcile?: {
    readonly reconciliation: Reconciliation;
    readonly data: DataStatus;
  } | null;
}

/** The metric that carries the last success across runs (see metrics-file.ts). */
export const LAST_SUCCESS_METRIC = 'cardsync_last_success_timestamp_seconds';

interface Family {
  readonly name: string;
  readonly help: string;
  readonly samples: readonly { labels: Readonly<Record<string, string>>; value: number }[];
}

/**
 * The metrics of one run in the Prometheus text exposition format (version 0.0.4) that the
 * node_exporter textfile collector reads: gauges only, a `command` label on each. Written by
 * hand rather than through prom-client: a handful of gauges rendered once per process needs no
 * registry, and the format is small and stable (HELP/TYPE lines, escaped label values).
 * @example writeFileAtomic('/var/lib/node_exporter/textfile/cardsync.prom', renderMetrics(metrics))
 */
export function renderMetrics(m: JobMetrics): string {
  const base = { command: m.command };
  const one = (value: number, labels: Record<string, string> = {}) => [
    { labels: { ...base, ...labels }, value },
  ];
  const families: Family[] = [
    {
      name: 'cardsync_last_run_timestamp_seconds',
      help: 'When the last run of the command ended, in Unix seconds.',
      samples: one(m.finishedAt / 1000),
    },
    {
      name: 'cardsync_last_run_duration_seconds',
      help: 'How long the last run of the command took.',
      samples: one((m.finishedAt - m.startedAt) / 1000),
    },
    {
      name: 'cardsync_last_run_exit_code',
      help: 'The exit code of the last run (0 ok, 2 usage, 3 key refused, 4 sync incomplete, 5 locked, 6 discrepancies, 1 internal).',
      samples: one(m.exitCode, { outcome: m.outcome }),
    },
    {
      name: LAST_SUCCESS_METRIC,
      help: 'When the command last ended with exit code 0 or 6, in Unix seconds.',
      samples: m.lastSuccessAt === null ? [] : one(m.lastSuccessAt / 1000),
    },
  ];
  if (m.sync) families.push(...syncFamilies(m.sync, base));
  if (m.reconcile) families.push(...reconcileFamilies(m.reconcile, base));
  return families
    .filter((f) => f.samples.length > 0)
    .map(renderFamily)
    .join('');
}

function syncFamilies(sync: SyncResult, base: Record<string, string>): Family[] {
  const rows: Family['samples'][number][] = [];
  for (const m of sync.merchants) {
    const who = { ...base, source: m.source, merchant_id: m.merchantId ?? '' };
    for (const [resource, counts] of [
      ['offerings', m.offerings],
      ['cards', m.cards],
      ['transactions', m.transactions],
    ] as const) {
      rows.push(
        { labels: { ...who, resource, kind: 'read' }, value: counts.fetched },
        { labels: { ...who, resource, kind: 'new' }, value: counts.inserted },
        { labels: { ...who, resource, kind: 'changed' }, value: counts.updated },
        { labels: { ...who, resource, kind: 'quarantined' }, value: counts.quarantined },
      );
    }
  }
  return [
    {
      name: 'cardsync_sync_complete',
      help: '1 when the last sync read every merchant in full, else 0.',
      samples: [{ labels: base, value: sync.outcome === 'done' ? 1 : 0 }],
    },
    {
      name: 'cardsync_sync_rows',
      help: 'Rows the last sync read, and of them new, changed and quarantined, by merchant and resource.',
      samples: rows,
    },
  ];
}

function reconcileFamilies(
  r: NonNullable<JobMetrics['reconcile']>,
  base: Record<string, string>,
): Family[] {
  const { current, acknowledged, resolved } = r.reconciliation;
  const states: [string, readonly StoredFinding[]][] = [
    ['current', current],
    ['new', current.filter((f) => f.state === 'new')],
    ['acknowledged', acknowledged],
    ['resolved', resolved],
  ];
  const samples = CHECK_CODES.flatMap((check) =>
    states.map(([state, findings]) => ({
      labels: { ...base, check, severity: SEVERITY_OF[check], state },
      value: findings.filter((f) => f.check === check).length,
    })),
  );
  return [
    {
      name: 'cardsync_findings',
      help: 'Findings of the last reconciliation by check, severity and state (current = new + persisting, unacknowledged).',
      samples,
    },
    {
      name: 'cardsync_reconcile_data_complete',
      help: '1 when the last reconciliation read the data of a complete sync, else 0.',
      samples: [{ labels: base, value: r.data.complete ? 1 : 0 }],
    },
  ];
}

function renderFamily(f: Family): string {
  const lines = [`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} gauge`];
  for (const s of f.samples) {
    const labels = Object.entries(s.labels)
      .map(([key, value]) => `${key}="${escapeLabel(value)}"`)
      .join(',');
    lines.push(`${f.name}{${labels}} ${formatValue(s.value)}`);
  }
  return `${lines.join('\n')}\n`;
}

function escapeHelp(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
}

function escapeLabel(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  return String(value);
}
