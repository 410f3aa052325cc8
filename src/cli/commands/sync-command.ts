import type { Command } from 'commander';
import { createLogger } from '../../log/logger.js';
import { MirrorError } from '../../mirror/mirror-error.js';
import { runSync } from '../../sync/run-sync.js';
import type { SyncOutcome, SyncResult } from '../../sync/sync-result.js';
import type { CliIo } from '../cli-io.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { buildSources, loadConfig, openMirrorOrExit, syncSettings } from '../job-setup.js';
import { logLevelOption } from '../option-parsers.js';
import { formatSyncSummary } from '../sync-summary.js';
import { TerminalProgress } from '../terminal-progress.js';

/** The exit code of each sync outcome (job-interface.md). */
export const SYNC_EXIT_CODES: Readonly<Record<SyncOutcome, number>> = {
  done: EXIT.OK,
  unauthorized: EXIT.UNAUTHORIZED,
  incomplete: EXIT.SYNC_INCOMPLETE,
  interrupted: EXIT.SYNC_INCOMPLETE,
};

interface SyncFlags {
  config?: string;
  db?: string;
  baseUrl?: string;
  caFile?: string;
  merchantId?: string;
  since?: string;
  lookbackHours?: string;
  concurrency?: string;
  safetyLagSeconds?: string;
  json: boolean;
  progress: boolean;
  logLevel?: string;
}

/** Options shared by the commands that sync (`sync`, `run`). */
export function addSyncOptions(command: Command): Command {
  return command
    .option('--config <file>', 'JSON configuration file (several merchants, settings)')
    .option('--db <file>', 'the SQLite mirror (CARDSYNC_DB; default ./data/cardsync.sqlite)')
    .option('--base-url <url>', 'the upstream, https:// only (CARDSYNC_BASE_URL)')
    .option('--ca-file <file>', 'extra trusted CA for the upstream, PEM (CARDSYNC_CA_FILE)')
    .option('--merchant-id <id>', 'the merchant id (CARDSYNC_MERCHANT_ID; learnt from the cards)')
    .option('--since <instant>', 'where a first sync starts (ISO 8601); default the oldest card')
    .option('--lookback-hours <n>', 'hours before the cutoff read again every run (default 72)')
    .option('--concurrency <n>', 'requests in flight per merchant (default 8)')
    .option('--safety-lag-seconds <n>', 'how far behind upstream now the cutoff is (default 60)')
    .option('--json', 'print the result as JSON on stdout', false)
    .option('--no-progress', 'no progress line on a terminal')
    .option(
      '--log-level <level>',
      'pino level for the JSON logs on stderr',
      logLevelOption('--log-level'),
    );
}

/** `cardsync sync`: mirror offerings, merchant balance, cards and transactions into SQLite. */
export function registerSyncCommand(program: Command, io: CliIo): void {
  addSyncOptions(
    program
      .command('sync')
      .description('mirror offerings, merchant balance, cards and transactions into SQLite'),
  ).action(async (flags: SyncFlags) => {
    const result = await syncFromFlags(io, flags, 'sync');
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
  });
}

/** Configure, open, lock and sync; shared by `sync` and `run`. */
export async function syncFromFlags(
  io: CliIo,
  flags: SyncFlags,
  command: string,
): Promise<{ result: SyncResult; mirrorFile: string; message: string }> {
  const config = await loadConfig(io, configFlags(flags), true);
  const logger = createLogger({ level: flags.logLevel ?? (io.stderrIsTTY ? 'warn' : 'info') });
  const { sources, close } = buildSources(config, logger);
  const progress =
    io.stderrIsTTY && flags.progress ? new TerminalProgress((text) => io.stderr(text)) : undefined;
  try {
    const mirror = openMirrorOrExit(config.db);
    try {
      const result = await runSync({
        db: mirror.db,
        sources,
        settings: syncSettings(config),
        logger,
        signal: io.signal,
        ...(progress ? { progress } : {}),
        command,
        exitCodes: SYNC_EXIT_CODES,
      });
      progress?.finish();
      return { result, mirrorFile: config.db, message: outcomeMessage(result) };
    } catch (error) {
      progress?.finish();
      if (error instanceof MirrorError && error.code === 'MIRROR_LOCKED')
        throw new ExitError(EXIT.LOCKED, error.message);
      throw error;
    } finally {
      await mirror.close();
    }
  } finally {
    await close();
    logger.flush();
  }
}

function outcomeMessage(result: SyncResult): string {
  const stopped = result.merchants.find((m) => m.error);
  switch (result.outcome) {
    case 'unauthorized':
      return `the upstream refused the key of ${stopped?.source ?? 'a merchant'} (401)`;
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
