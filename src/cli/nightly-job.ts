import type { Logger } from 'pino';
import type { JobConfig } from '../config/index.js';
import { newRunId } from '../run-id.js';
import { type NightlyRunResult, runNightly } from '../runner/nightly-run.js';
import type { SyncResult } from '../sync/sync-result.js';
import type { CliIo } from './cli-io.js';
import { SYNC_EXIT_CODES } from './commands/sync-command.js';
import { EXIT, type ExitCode, ExitError } from './exit-codes.js';
import { startHeapCeiling } from './heap-ceiling.js';
import { exitCodeOf, jobExit } from './job-errors.js';
import { type FailOn, nightlyExitCode } from './job-exit.js';
import { buildSources, openMirrorOrExit, syncSettings } from './job-setup.js';
import { recordMetrics } from './metrics-output.js';
import { runExitMessage } from './run-summary.js';
import { TerminalProgress } from './terminal-progress.js';

/** How one nightly job ended: its result when it ran, else the error that stopped it. */
export interface NightlyJobOutcome {
  readonly result: NightlyRunResult | null;
  /** The sync's result, also when the reconciliation then failed (no result); null if none. */
  readonly sync: SyncResult | null;
  readonly exitCode: ExitCode;
  /** The mapped error (an ExitError, or an internal error) when the run could not finish. */
  readonly error: unknown;
  /**
   * What ends the command other than 0: `error`, or for a run that finished with 3, 4 or 6 an
   * ExitError whose message is the one line stderr gets; null for 0.
   */
  readonly failure: unknown;
}

/**
 * One nightly run (sync, then reconcile) from a loaded configuration, with its metrics file
 * written after; shared by `cardsync run` and each tick of `cardsync schedule`. Never throws.
 */
export async function nightlyJob(
  io: CliIo,
  config: JobConfig,
  options: { failOn: FailOn | undefined; progress: boolean; logger: Logger; runId?: string },
): Promise<NightlyJobOutcome> {
  const started = Date.now();
  // Chosen here rather than by runNightly, so that the lines of the clients (rate limits) and of
  // the metrics file carry it too, as every line of the run does.
  const runId = options.runId ?? newRunId(started);
  const logger = options.logger.child({ runId });
  let outcome: NightlyJobOutcome;
  // The sync's result even when the reconciliation then throws: the metrics show the sync ran.
  let synced: SyncResult | null = null;
  const ceiling = startHeapCeiling();
  try {
    const result = await runOnce(io, config, { ...options, runId }, (sync) => {
      synced = sync;
    });
    // runNightly computed it with nightlyExitCode (see runOnce), so it is one of EXIT.
    const exitCode = result.exitCode as ExitCode;
    const failure =
      exitCode === EXIT.OK
        ? null
        : new ExitError(exitCode, runExitMessage(result, options.failOn, config.merchants));
    outcome = { result, sync: result.sync, exitCode, error: null, failure };
  } catch (error) {
    // Until the sync has returned, a mirror that cannot be written leaves it incomplete (exit 4).
    const mapped = jobExit(error, { file: config.db, syncing: synced === null });
    outcome = {
      result: null,
      sync: synced,
      exitCode: exitCodeOf(mapped),
      error: mapped,
      failure: mapped,
    };
  } finally {
    ceiling.stop();
  }
  const { result } = outcome;
  recordMetrics(config.metricsFile, logger, {
    command: 'run',
    startedAt: started,
    finishedAt: Date.now(),
    exitCode: outcome.exitCode,
    sync: outcome.sync,
    reconcile: result?.reconcile ?? null,
  });
  return outcome;
}

async function runOnce(
  io: CliIo,
  config: JobConfig,
  options: { failOn: FailOn | undefined; progress: boolean; logger: Logger; runId: string },
  onSynced: (sync: SyncResult) => void,
): Promise<NightlyRunResult> {
  const { sources, close } = buildSources(config, options.logger.child({ runId: options.runId }));
  const progress = options.progress ? new TerminalProgress((text) => io.stderr(text)) : undefined;
  try {
    const mirror = openMirrorOrExit(config.db, config.origins.db);
    try {
      return await runNightly({
        db: mirror.db,
        sources,
        syncSettings: syncSettings(config),
        reconSettings: config.recon,
        reportsDir: config.reportsDir,
        logger: options.logger,
        runId: options.runId,
        signal: io.signal,
        ...(progress ? { progress } : {}),
        syncExitCodes: SYNC_EXIT_CODES,
        onSynced,
        exitCodeOf: ({ sync, reconcile }) =>
          nightlyExitCode(sync.outcome, reconcile?.reconciliation ?? null, options.failOn),
      });
    } finally {
      progress?.finish();
      await mirror.close();
    }
  } finally {
    await close();
  }
}
