import { readFileSync, statSync } from 'node:fs';
import { writeFileAtomic } from '../reports/write-file-atomic.js';
import { type JobMetrics, LAST_SUCCESS_METRIC, renderMetrics } from './job-metrics.js';
import { MetricsFileError } from './metrics-file-error.js';

/**
 * Write the metrics of one run to the node_exporter textfile `path`, atomically (temp file and
 * rename). The last success is carried over from the file being replaced when this run did not
 * succeed, so `time() - cardsync_last_success_timestamp_seconds` keeps growing across failures.
 * @throws MetricsFileError when `path` exists and is not a regular file (a FIFO would block the
 *   read for ever, a device would be replaced), before anything is read or written.
 * @example writeMetricsFile('/var/lib/node_exporter/textfile/cardsync.prom', { command: 'run', success: true, ... })
 */
export function writeMetricsFile(
  path: string,
  metrics: Omit<JobMetrics, 'lastSuccessAt'> & { readonly success: boolean },
): void {
  const { success, ...rest } = metrics;
  const existing = statSync(path, { throwIfNoEntry: false });
  if (existing !== undefined && !existing.isFile())
    throw new MetricsFileError('METRICS_FILE_NOT_REGULAR', `${path} is not a regular file`);
  const lastSuccessAt = success ? metrics.finishedAt : previousSuccess(path, metrics.command);
  writeFileAtomic(path, renderMetrics({ ...rest, lastSuccessAt }));
}

/** The last success the file at `path` records for `command`, in Unix milliseconds. */
function previousSuccess(path: string, command: string): number | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  const label = `command="${command.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${LAST_SUCCESS_METRIC}{`) || !line.includes(label)) continue;
    const seconds = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(seconds)) return Math.round(seconds * 1000);
  }
  return null;
}
