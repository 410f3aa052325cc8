import type { StoredFinding } from '../recon/stored-finding.js';
import { csvText } from './csv-text.js';
import {
  ACKNOWLEDGED_COLUMNS,
  DISCREPANCY_COLUMNS,
  findingRow,
  RESOLVED_COLUMNS,
} from './finding-rows.js';
import { compareFindings } from './report-order.js';
import { SUMMARY_COLUMNS, type SummaryInput, summaryRows } from './summary-rows.js';

/** The files of a report folder (job-interface.md names the first three). */
export const REPORT_FILES = {
  discrepancies: 'discrepancies.csv',
  resolved: 'resolved.csv',
  summary: 'summary.csv',
  acknowledged: 'acknowledged.csv',
} as const;

/**
 * The content of every file of one reconciliation's report folder, by file name: pure, so the
 * same reconciliation always gives the same bytes.
 * @example const files = reportFiles({ runId, command: 'reconcile', reconciledAt, data, ... });
 */
export function reportFiles(input: SummaryInput): Map<string, string> {
  const { current, resolved, acknowledged } = input.reconciliation;
  const table = (columns: readonly string[], findings: readonly StoredFinding[]) =>
    csvText(columns, [...findings].sort(compareFindings).map(findingRow));
  return new Map([
    [REPORT_FILES.discrepancies, table(DISCREPANCY_COLUMNS, current)],
    [REPORT_FILES.resolved, table(RESOLVED_COLUMNS, resolved)],
    [REPORT_FILES.summary, csvText(SUMMARY_COLUMNS, summaryRows(input))],
    [REPORT_FILES.acknowledged, table(ACKNOWLEDGED_COLUMNS, acknowledged)],
  ]);
}
