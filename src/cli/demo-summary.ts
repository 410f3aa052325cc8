import { isAbsolute, join, relative } from 'node:path';
import { CHECK_CODES, type CheckCode, SEVERITY_OF, type Severity } from '../recon/check-code.js';
import type { NightlyRunResult } from '../runner/nightly-run.js';
import type { DemoMerchant } from './demo-config.js';
import type { DemoLayout } from './demo-folder.js';
import type { MirroredRows } from './demo-mirror-rows.js';
import { runJson } from './run-summary.js';
import { tableText } from './table-text.js';

/** One merchant of a finished demo: where its key is, what was journaled and mirrored. */
export interface DemoMerchantRows extends DemoMerchant, MirroredRows {
  /** Orders imported from its journal. */
  readonly orders: number;
}

/** One check of a finished demo: findings the world was built with, and those reported. */
export interface DemoCheckRow {
  readonly check: CheckCode;
  readonly severity: Severity;
  /** Findings of the ground-truth manifest with this code. */
  readonly planted: number;
  /** Rows of `discrepancies.csv` with this code. */
  readonly reported: number;
}

/** Everything a finished demo reports. */
export interface DemoOutcome {
  readonly layout: DemoLayout;
  readonly seed: string;
  readonly baseUrl: string;
  readonly caFile: string;
  readonly groundTruthFile: string | null;
  readonly merchants: readonly DemoMerchantRows[];
  readonly checks: readonly DemoCheckRow[];
  /** Codes the world does not plant, with the manifest's reason. */
  readonly notPlanted: Readonly<Record<string, string>>;
  readonly run: NightlyRunResult;
  readonly durationMs: number;
}

/** Planted and reported findings per check code, every code listed, in report order. */
export function demoChecks(
  planted: readonly { readonly check: string }[],
  run: NightlyRunResult,
): DemoCheckRow[] {
  const reported = run.reconcile?.reconciliation.current ?? [];
  return CHECK_CODES.map((check) => ({
    check,
    severity: SEVERITY_OF[check],
    planted: planted.filter((f) => f.check === check).length,
    reported: reported.filter((f) => f.check === check).length,
  }));
}

/** The files an analyst opens, through `latest` so the paths stay valid after the next run. */
function reportFiles(layout: DemoLayout) {
  const latest = join(layout.reportsDir, 'latest');
  return {
    discrepancies: join(latest, 'discrepancies.csv'),
    summary: join(latest, 'summary.csv'),
  };
}

/** The machine summary of a demo (`--json`): no key, only the files that hold them. */
export function demoJson(outcome: DemoOutcome) {
  const { layout, run } = outcome;
  return {
    dir: layout.dir,
    configFile: layout.configFile,
    mirror: layout.db,
    reportsDir: layout.reportsDir,
    reportDir: run.reconcile?.reportDir ?? null,
    reports: reportFiles(layout),
    sandbox: {
      baseUrl: outcome.baseUrl,
      stateDir: layout.sandboxDir,
      caFile: outcome.caFile,
      seed: outcome.seed,
      groundTruthFile: outcome.groundTruthFile,
    },
    merchants: outcome.merchants,
    checks: outcome.checks,
    notPlanted: outcome.notPlanted,
    durationMs: outcome.durationMs,
    run: runJson(run),
  };
}

/**
 * The human summary of a demo: what was mirrored, findings planted against reported, where the
 * reports and the mirror are, and how to open and rerun them. Paths under `cwd` are shown
 * relative to it, as the user would type them.
 */
export function formatDemoSummary(outcome: DemoOutcome, cwd: string): string {
  const { layout, run } = outcome;
  const shown = (file: string) => {
    const rel = relative(cwd, file);
    return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? file : rel;
  };
  const files = reportFiles(layout);
  const planted = outcome.checks.reduce((n, c) => n + c.planted, 0);
  const reported = outcome.checks.reduce((n, c) => n + c.reported, 0);
  const merchants = tableText([
    ['merchant', 'id', 'currency', 'cards', 'transactions', 'orders'],
    ...outcome.merchants.map((m) => [
      m.name,
      m.merchantId,
      m.currency,
      String(m.cards),
      String(m.transactions),
      String(m.orders),
    ]),
  ]);
  const checks = tableText([
    ['check', 'severity', 'planted', 'reported'],
    ...outcome.checks.map((c) => [
      c.check,
      c.severity,
      String(c.planted),
      `${c.reported}${c.reported === c.planted ? '' : ' (!)'}`,
    ]),
    ['total', '', String(planted), String(reported)],
  ]);
  const port = new URL(outcome.baseUrl).port;
  const db = shell(shown(layout.db));
  const lines = [
    `cardsync demo: run ${run.runId} synced and reconciled the sandbox (seed ${outcome.seed}) in ${(outcome.durationMs / 1000).toFixed(1)} s`,
    '',
    'mirrored (cards and transactions in the mirror; orders imported from each journal):',
    indent(merchants),
    `findings (planted: in the sandbox's ground truth; reported: rows in discrepancies.csv):`,
    indent(checks),
    ...notPlantedLine(outcome, shown),
    '',
    `reports:  ${shown(files.discrepancies)}`,
    `          ${shown(files.summary)}`,
    `mirror:   ${shown(layout.db)}`,
    `config:   ${shown(layout.configFile)} (keys in ${shown(layout.sandboxDir)}/*.key)`,
    '',
    'open the mirror read-only (docs/analysts.md; more queries in sql/examples.sql):',
    `  sqlite3 -readonly ${db} "SELECT * FROM open_findings LIMIT 10"`,
    'run the nightly job again against the same sandbox:',
    `  npx cardsync sandbox --state-dir ${shell(shown(layout.sandboxDir))} --port ${port}   # in another terminal`,
    `  npx cardsync run --config ${shell(shown(layout.configFile))}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** The codes the world leaves out; the manifest says why (MERCHANT_BALANCE_MISMATCH needs two syncs). */
function notPlantedLine(outcome: DemoOutcome, shown: (file: string) => string): string[] {
  const codes = Object.keys(outcome.notPlanted);
  if (codes.length === 0 || outcome.groundTruthFile === null) return [];
  return [`  not planted: ${codes.join(', ')} (${shown(outcome.groundTruthFile)} says why)`];
}

function indent(text: string): string {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/** `text` as one shell word, quoted only when it needs to be. */
function shell(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
