import type { Logger } from 'pino';
import type { MerchantSource } from '../../config/index.js';
import { MirrorError } from '../../mirror/mirror-error.js';
import { newRunId } from '../../run-id.js';
import { runSync } from '../../sync/run-sync.js';
import { stoppedMerchant } from '../../sync/stopped-merchant.js';
import type { SyncResult } from '../../sync/sync-result.js';
import type { CliIo } from '../cli-io.js';
import { commandLogger } from '../command-logger.js';
import { SYNC_EXIT_CODES, type SyncFlags } from '../commands/sync-command.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { startHeapCeiling } from '../heap-ceiling.js';
import {
  buildSources,
  loadConfig,
  logConfigured,
  openMirrorOrExit,
  syncSettings,
} from '../job-setup.js';
import { isMirrorBusy, mirrorBusyExit } from '../mirror-busy.js';
import { mirrorFailureExit } from '../mirror-failure-exit.js';
import { refusedKeyMessage } from '../refused-key.js';
import { logRunOutcome } from '../run-outcome-log.js';
import { formatSyncSummary } from '../sync-summary.js';
import { TerminalProgress } from '../terminal-progress.js';

/** The body of `cardsync sync`: sync, print the summary, and end with the outcome's exit code. */
export async function syncAction(io: CliIo, flags: SyncFlags): Promise<void> {
  // The logger and the run id come before the configuration, so that a bad setting (exit 2)
  // ends with a `run finished` line as every other end does. The run id is chosen here rather
  // than by runSync so that the clients' lines (rate limits) carry it too.
  const logger = commandLogger(io, flags.logLevel);
  const started = Date.now();
  const runId = newRunId(started);
  const ceiling = startHeapCeiling();
  let synced: Awaited<ReturnType<typeof syncFromFlags>> | null = null;
  let failure: unknown = null;
  try {
    synced = await syncFromFlags(io, flags, { logger, runId });
    io.stdout(
      flags.json
        ? `${JSON.stringify(synced.result)}\n`
        : formatSyncSummary(synced.result, synced.mirrorFile),
    );
    if (synced.result.outcome !== 'done')
      failure = new ExitError(
        synced.result.outcome === 'unauthorized' ? EXIT.UNAUTHORIZED : EXIT.SYNC_INCOMPLETE,
        synced.message,
      );
  } catch (error) {
    failure = error;
  } finally {
    ceiling.stop();
  }
  logRunOutcome(logger, {
    command: 'sync',
    runId,
    // Not job-errors' exitCodeOf: it brings the reports module, which a sync never loads.
    exitCode:
      failure === null ? EXIT.OK : failure instanceof ExitError ? failure.exitCode : EXIT.INTERNAL,
    durationMs: Date.now() - started,
    sync: synced?.result ?? null,
    error: failure,
  });
  logger.flush();
  if (failure !== null) throw failure;
}

/** Configure, open, lock and sync. */
async function syncFromFlags(
  io: CliIo,
  flags: SyncFlags,
  run: { readonly logger: Logger; readonly runId: string },
): Promise<{ result: SyncResult; mirrorFile: string; message: string }> {
  const config = await loadConfig(io, configFlags(flags), true);
  const { logger, runId } = run;
  logConfigured(logger, runId, config);
  const { sources, close } = buildSources(config, logger.child({ runId }));
  const progress =
    io.stderrIsTTY && flags.progress ? new TerminalProgress((text) => io.stderr(text)) : undefined;
  try {
    const mirror = openMirrorOrExit(config.db, config.origins.db);
    try {
      const result = await runSync({
        db: mirror.db,
        sources,
        settings: syncSettings(config),
        logger,
        runId,
        signal: io.signal,
        ...(progress ? { progress } : {}),
        command: 'sync',
        exitCodes: SYNC_EXIT_CODES,
      });
      progress?.finish();
      return { result, mirrorFile: config.db, message: outcomeMessage(result, config.merchants) };
    } catch (error) {
      progress?.finish();
      if (error instanceof MirrorError && error.code === 'MIRROR_LOCKED')
        throw new ExitError(EXIT.LOCKED, error.message, { cause: error });
      if (isMirrorBusy(error)) throw mirrorBusyExit(error);
      throw mirrorFailureExit(error, { file: config.db, syncing: true }) ?? error;
    } finally {
      await mirror.close();
    }
  } finally {
    await close();
  }
}

function outcomeMessage(result: SyncResult, merchants: readonly MerchantSource[]): string {
  const stopped = stoppedMerchant(result);
  switch (result.outcome) {
    case 'unauthorized':
      return refusedKeyMessage(
        merchants.find((m) => m.name === stopped?.source),
        stopped?.error,
      );
    case 'interrupted':
      return 'sync interrupted; finished windows are committed and the next run resumes';
    case 'incomplete':
      return `sync incomplete: ${stopped?.error?.message ?? 'upstream unavailable'}; what was fetched is committed and the next run resumes`;
    default:
      return 'done';
  }
}

function configFlags(flags: SyncFlags) {
  const { json: _json, progress: _progress, logLevel: _level, ...rest } = flags;
  return rest;
}
