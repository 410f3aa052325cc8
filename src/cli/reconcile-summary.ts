import { CHECK_CODES, SEVERITY_OF } from '../recon/check-code.js';
import type { ReconcileResult } from '../runner/reconcile-mirror.js';

/** Finding counts of one reconciliation. */
function counts(result: ReconcileResult) {
  const { current, acknowledged, resolved } = result.reconciliation;
  const fresh = current.filter((f) => f.state === 'new').length;
  return {
    current: current.length,
    new: fresh,
    persisting: current.length - fresh,
    acknowledged: acknowledged.length,
    resolved: resolved.length,
  };
}

/** The machine summary of a reconciliation (`--json`); the CSV files hold the findings. */
export function reconcileJson(result: ReconcileResult) {
  const { current, acknowledged, resolved } = result.reconciliation;
  const byCheck = Object.fromEntries(
    CHECK_CODES.map((check) => {
      const mine = current.filter((f) => f.check === check);
      return [
        check,
        {
          severity: SEVERITY_OF[check],
          enabled: result.settings.enabled[check],
          current: mine.length,
          new: mine.filter((f) => f.state === 'new').length,
          acknowledged: acknowledged.filter((f) => f.check === check).length,
          resolved: resolved.filter((f) => f.check === check).length,
        },
      ];
    }),
  );
  return {
    runId: result.runId,
    reconciledAt: result.reconciledAt,
    durationMs: result.durationMs,
    reportDir: result.reportDir,
    files: result.files,
    data: result.data,
    counts: counts(result),
    byCheck,
    merchants: result.results.merchants,
    coverage: result.results.coverage,
  };
}

/** The human summary of a reconciliation: a few lines for a terminal or a cron mail. */
export function formatReconcileSummary(result: ReconcileResult): string {
  const c = counts(result);
  const lines = [
    `reconcile ${result.runId}: ${c.current} findings (${c.new} new, ${c.persisting} persisting), ${c.resolved} resolved, ${c.acknowledged} acknowledged`,
    result.data.complete
      ? `  data: complete (sync ${result.data.syncRunId} ${result.data.syncOutcome})`
      : `  data: INCOMPLETE: ${result.data.reason}`,
  ];
  for (const check of CHECK_CODES) {
    const mine = result.reconciliation.current.filter((f) => f.check === check);
    if (mine.length === 0) continue;
    const fresh = mine.filter((f) => f.state === 'new').length;
    lines.push(
      `  ${SEVERITY_OF[check].padEnd(8)} ${check.padEnd(26)} ${String(mine.length).padStart(6)}${fresh > 0 ? ` (${fresh} new)` : ''}`,
    );
  }
  const off = CHECK_CODES.filter((check) => !result.settings.enabled[check]);
  if (off.length > 0) lines.push(`  turned off: ${off.join(', ')}`);
  const skipped = result.results.coverage.reduce(
    (sum, c) => sum + c.skipped.reduce((n, s) => n + s.count, 0),
    0,
  );
  if (skipped > 0)
    lines.push(`  coverage: ${skipped} records could not be checked (summary.csv says why)`);
  lines.push(`  reports: ${result.reportDir}${result.latestMoved ? ' (latest)' : ''}`);
  return `${lines.join('\n')}\n`;
}
