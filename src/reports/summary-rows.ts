import { CHECK_CODES, type CheckCode, SEVERITIES, SEVERITY_OF } from '../recon/check-code.js';
import type { CheckCoverage } from '../recon/check-coverage.js';
import type { Reconciliation } from '../recon/findings-store.js';
import type { StoredFinding } from '../recon/stored-finding.js';
import type { SyncedRange } from '../recon/synced-range.js';
import type { CsvRow } from './csv-text.js';
import type { DataStatus } from './data-status.js';

/**
 * The columns of `summary.csv`: one long table, read by `section` (`run`, `findings`,
 * `coverage`) and `measure`, so a spreadsheet filter or a pivot gives any view of it.
 */
export const SUMMARY_COLUMNS = [
  'section',
  'check',
  'severity',
  'merchant_id',
  'measure',
  'unit',
  'reason',
  'value',
] as const;

/** The finding counts `summary.csv` gives for every check, severity and in total. */
export const FINDING_MEASURES = [
  'current',
  'new',
  'persisting',
  'acknowledged',
  'resolved',
] as const;

/** What `summary.csv` states. */
export interface SummaryInput {
  readonly runId: string;
  /** The command that reconciled: `reconcile` or `run`. */
  readonly command: string;
  readonly reconciledAt: string;
  readonly data: DataStatus;
  /** Each merchant's synced range, as the checks saw it. */
  readonly merchants: readonly SyncedRange[];
  /** One entry per check and merchant that ran. */
  readonly coverage: readonly CheckCoverage[];
  /** Which checks were turned on. */
  readonly enabled: Readonly<Record<CheckCode, boolean>>;
  readonly reconciliation: Reconciliation;
}

type Measure = (typeof FINDING_MEASURES)[number];

/**
 * The rows of `summary.csv`, in a fixed order: the run and how complete its data was; the
 * finding counts of every check (zero included, a check turned off says so), each severity and
 * the total; then each check's coverage per merchant: what it examined and what it skipped, why.
 */
export function summaryRows(input: SummaryInput): CsvRow[] {
  return [...runRows(input), ...findingRows(input), ...coverageRows(input)];
}

function row(
  fields: Partial<Record<(typeof SUMMARY_COLUMNS)[number], string | number | boolean | null>>,
): CsvRow {
  return fields;
}

function runRows(input: SummaryInput): CsvRow[] {
  const run = (measure: string, value: string | boolean | null, reason: string | null = null) =>
    row({ section: 'run', measure, reason, value });
  const { data } = input;
  const rows = [
    run('run_id', input.runId),
    run('command', input.command),
    run('reconciled_at', input.reconciledAt),
    run('sync_run_id', data.syncRunId),
    run('sync_outcome', data.syncOutcome),
    run('data_complete', data.complete, data.reason),
  ];
  for (const m of [...input.merchants].sort((a, b) => compare(a.merchantId, b.merchantId))) {
    const never = m.cutoff === null ? 'never synced: time-based checks skipped' : null;
    rows.push(
      row({
        section: 'run',
        merchant_id: m.merchantId,
        measure: 'cutoff',
        reason: never,
        value: m.cutoff,
      }),
      row({ section: 'run', merchant_id: m.merchantId, measure: 'synced_from', value: m.start }),
      row({
        section: 'run',
        merchant_id: m.merchantId,
        measure: 'synced_through',
        value: m.through,
      }),
    );
  }
  return rows;
}

function findingRows(input: SummaryInput): CsvRow[] {
  const { current, acknowledged, resolved } = input.reconciliation;
  const counted: [Measure, readonly StoredFinding[]][] = [
    ['current', current],
    ['new', current.filter((f) => f.state === 'new')],
    ['persisting', current.filter((f) => f.state === 'persisting')],
    ['acknowledged', acknowledged],
    ['resolved', resolved],
  ];
  const rows: CsvRow[] = [];
  for (const check of CHECK_CODES) {
    const severity = SEVERITY_OF[check];
    rows.push(
      row({
        section: 'findings',
        check,
        severity,
        measure: 'enabled',
        value: input.enabled[check],
      }),
    );
    for (const [measure, findings] of counted)
      rows.push(
        row({
          section: 'findings',
          check,
          severity,
          measure,
          value: findings.filter((f) => f.check === check).length,
        }),
      );
  }
  for (const severity of SEVERITIES)
    for (const [measure, findings] of counted)
      rows.push(
        row({
          section: 'findings',
          severity,
          measure,
          value: findings.filter((f) => f.severity === severity).length,
        }),
      );
  for (const [measure, findings] of counted)
    rows.push(row({ section: 'findings', measure, value: findings.length }));
  return rows;
}

function coverageRows(input: SummaryInput): CsvRow[] {
  const rows: CsvRow[] = [];
  for (const check of CHECK_CODES) {
    const severity = SEVERITY_OF[check];
    if (!input.enabled[check]) {
      rows.push(
        row({
          section: 'coverage',
          check,
          severity,
          measure: 'not_run',
          reason: 'turned off by configuration',
        }),
      );
      continue;
    }
    const entries = input.coverage
      .filter((c) => c.check === check)
      .sort((a, b) => compare(a.merchantId, b.merchantId));
    for (const c of entries) {
      const base = { section: 'coverage', check, severity, merchant_id: c.merchantId };
      for (const unit of Object.keys(c.examined).sort())
        rows.push(
          row({
            ...base,
            measure: 'examined',
            unit,
            value: c.examined[unit as keyof typeof c.examined] ?? 0,
          }),
        );
      for (const skip of c.skipped)
        rows.push(
          row({
            ...base,
            measure: 'skipped',
            unit: skip.unit,
            reason: skip.reason,
            value: skip.count,
          }),
        );
    }
  }
  return rows;
}

/** Code-point order: the same in every locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
