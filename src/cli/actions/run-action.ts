import { newRunId } from '../../run-id.js';
import type { CliIo } from '../cli-io.js';
import { commandLogger } from '../command-logger.js';
import { type RunFlags, runConfigFlags } from '../commands/run-command.js';
import { EXIT } from '../exit-codes.js';
import { exitCodeOf } from '../job-errors.js';
import { loadConfig, logConfigured } from '../job-setup.js';
import { type NightlyJobOutcome, nightlyJob } from '../nightly-job.js';
import { checkOutputDirs } from '../output-dirs.js';
import { logRunOutcome } from '../run-outcome-log.js';
import { formatRunSummary, runJson } from '../run-summary.js';

/** The body of `cardsync run`: one nightly job, its summary, and its exit code. */
export async function runAction(io: CliIo, flags: RunFlags): Promise<void> {
  // The logger and the run id come before the configuration, so that a bad setting (exit 2)
  // ends with a `run finished` line as every other end does.
  const logger = commandLogger(io, flags.logLevel);
  const started = Date.now();
  const runId = newRunId(started);
  let outcome: NightlyJobOutcome | null = null;
  let failure: unknown = null;
  try {
    const config = await loadConfig(io, runConfigFlags(flags), true);
    logConfigured(logger, runId, config);
    checkOutputDirs(config);
    outcome = await nightlyJob(io, config, {
      failOn: flags.failOn,
      progress: io.stderrIsTTY && flags.progress,
      logger,
      runId,
    });
    const { result } = outcome;
    if (result)
      io.stdout(
        flags.json ? `${JSON.stringify(runJson(result))}\n` : formatRunSummary(result, config.db),
      );
    failure = outcome.failure;
  } catch (error) {
    failure = error;
  }
  logRunOutcome(logger, {
    command: 'run',
    runId,
    exitCode: failure === null ? EXIT.OK : exitCodeOf(failure),
    durationMs: Date.now() - started,
    sync: outcome?.sync ?? null,
    reconcile: outcome?.result?.reconcile ?? null,
    reconcileSkipped: outcome?.result?.reconcileSkipped ?? null,
    error: failure,
  });
  logger.flush();
  if (failure !== null) throw failure;
}
