import type { MerchantSource } from '../../config/index.js';
import { createLogger } from '../../log/logger.js';
import { MirrorError } from '../../mirror/mirror-error.js';
import { newRunId, runSync } from '../../sync/run-sync.js';
import type { SyncResult } from '../../sync/sync-result.js';
import type { CliIo } from '../cli-io.js';
import { SYNC_EXIT_CODES, type SyncFlags } from '../commands/sync-command.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { startHeapCeiling } from '../heap-ceiling.js';
import { buildSources, loadConfig, openMirrorOrExit, syncSettings } from '../job-setup.js';
import { isMirrorBusy, mirrorBusyExit } from '../mirror-busy.js';
import { mirrorFailureExit } from '../mirror-failure-exit.js';
import { refusedKeyMessage } from '../refused-key.js';
import { formatSyncSummary } from '../sync-summary.js';
import { TerminalProgress } from '../terminal-progress.js';

/** The body of `cardsync sync`: sync, print the summary, and end with the outcome's exit code. */
export async function syncAction(io: CliIo, flags: SyncFlags): Promise<void> {
  const ceiling = startHeapCeiling();
  let result: Awaited<ReturnType<typeof syncFromFlags>>;
  try {
    result = await syncFromFlags(io, flags, 'sync');
  } finally {
    ceiling.stop();
  }
  io.stdout(
    flags.json
      ? `${JSON.stringify(result.result)}\n`
      : formatSyncSummary(result.result, result.mirrorFile),
  );
  if (result.result.outcome !== 'done')
    throw new ExitError(
      result.result.outcome === 'unauthorized' ? EXIT.UNAUTHORIZED : EXIT.SYNC_INCOMPLETE,
      result.message,
    );
}

/** Configure, open, lock and sync. */
async function syncFromFlags(
  io: CliIo,
  flags: SyncFlags,
  command: string,
): Promise<{ result: SyncResult; mirrorFile: string; message: string }> {
  const config = await loadConfig(io, configFlags(flags), true);
  const logger = createLogger({ level: flags.logLevel ?? (io.stderrIsTTY ? 'warn' : 'info') });
  // Chosen here rather than by runSync, so that the clients' lines (rate limits) carry it too.
  const runId = newRunId(Date.now());
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
        command,
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
    logger.flush();
  }
}

function outcomeMessage(result: SyncResult, merchants: readonly MerchantSource[]): string {
  const stopped = result.merchants.find((m) => m.error);
  switch (result.outcome) {
    case 'unauthorized':
      return refusedKeyMessage(merchants.find((m) => m.name === stopped?.source));
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
