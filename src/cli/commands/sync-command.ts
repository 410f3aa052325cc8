import type { Command } from 'commander';
import type { SyncExitCodes } from '../../sync/sync-result.js';
import type { CliIo } from '../cli-io.js';
import { EXIT } from '../exit-codes.js';
import { logLevelOption } from '../option-parsers.js';

/** The exit code of each sync outcome (job-interface.md). */
export const SYNC_EXIT_CODES: SyncExitCodes = {
  done: EXIT.OK,
  unauthorized: EXIT.UNAUTHORIZED,
  incomplete: EXIT.SYNC_INCOMPLETE,
  interrupted: EXIT.SYNC_INCOMPLETE,
  busy: EXIT.LOCKED,
};

/** The flags of `cardsync sync`, as commander gives them. */
export interface SyncFlags {
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

/**
 * `cardsync sync`: mirror offerings, merchant balance, cards and transactions into SQLite.
 * The work is imported when the command runs, so other commands never load it.
 */
export function registerSyncCommand(program: Command, io: CliIo): void {
  addSyncOptions(
    program
      .command('sync')
      .description('mirror offerings, merchant balance, cards and transactions into SQLite'),
  ).action(async (flags: SyncFlags) => {
    const { syncAction } = await import('../actions/sync-action.js');
    await syncAction(io, flags);
  });
}
