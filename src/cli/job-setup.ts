import type { Logger } from 'pino';
import { CardIssuingClient, ClientConfigError } from '../api/index.js';
import {
  ConfigError,
  type ConfigFlags,
  describeConfig,
  type JobConfig,
  loadJobConfig,
  type ProxySetting,
} from '../config/index.js';
import { MirrorError } from '../mirror/mirror-error.js';
import { type Mirror, type OpenMirrorOptions, openMirror } from '../mirror/open-mirror.js';
import { sqliteDriver } from '../sqlite-driver.js';
import type { SyncSource } from '../sync/run-sync.js';
import type { SyncSettings } from '../sync/sync-context.js';
import type { CliIo } from './cli-io.js';
import { EXIT, ExitError, UsageError } from './exit-codes.js';
import { isMirrorBusy, mirrorBusyExit } from './mirror-busy.js';
import { mirrorFailureExit } from './mirror-failure-exit.js';

/** Read the configuration; a bad value is a usage error naming its key, and nothing is touched. */
export async function loadConfig(
  io: CliIo,
  flags: ConfigFlags,
  requireUpstream: boolean,
): Promise<JobConfig> {
  try {
    return await loadJobConfig({ env: io.env, cwd: io.cwd, flags, requireUpstream });
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/**
 * Log what run `runId` was configured with, as its first line: the mirror, reports and metrics
 * paths, the settings, and each merchant's base URL and where its key comes from, never a key;
 * and the Node.js and better-sqlite3 it runs on (src/sqlite-driver.ts says why the latter varies).
 */
export function logConfigured(logger: Logger, runId: string, config: JobConfig): void {
  const runtime = {
    node: process.versions.node,
    sqlite: `${sqliteDriver.package}@${sqliteDriver.version}`,
  };
  logger.info({ runId, config: describeConfig(config), runtime }, 'configured');
  if (sqliteDriver.warning) logger.warn({ runId, runtime }, sqliteDriver.warning);
}

/** The client's `proxy` option for the configured proxy (its URL, credentials and all, read explicitly). */
export function clientProxy(proxy: ProxySetting): { url: string; noProxy: string } {
  return { url: proxy.url, noProxy: proxy.noProxy };
}

/** A client per configured merchant; a bad base URL is a usage error before any request. */
export function buildSources(
  config: JobConfig,
  logger: Logger,
): { sources: SyncSource[]; close: () => Promise<void> } {
  const clients: CardIssuingClient[] = [];
  try {
    const sources = config.merchants.map((merchant) => {
      if (merchant.keyWarning) logger.warn({ source: merchant.name }, merchant.keyWarning);
      const client = new CardIssuingClient({
        baseUrl: merchant.baseUrl,
        apiKey: merchant.apiKey,
        ...(merchant.ca === undefined ? {} : { ca: merchant.ca }),
        concurrency: config.sync.concurrency,
        ...(config.proxy === undefined ? {} : { proxy: clientProxy(config.proxy) }),
        logger: logger.child({ source: merchant.name }),
      });
      clients.push(client);
      return {
        source: merchant.name,
        baseUrl: merchant.baseUrl,
        merchantId: merchant.merchantId,
        api: client,
      };
    });
    return { sources, close: async () => void (await Promise.all(clients.map((c) => c.close()))) };
  } catch (error) {
    void Promise.all(clients.map((c) => c.close()));
    if (error instanceof ClientConfigError)
      throw new UsageError(`merchant configuration: ${error.message}`, { cause: error });
    throw error;
  }
}

/** The sync's tunables in the units the engine works in. */
export function syncSettings(config: JobConfig): SyncSettings {
  return {
    concurrency: config.sync.concurrency,
    maxPagesPerWindow: config.sync.maxPagesPerWindow,
    lookbackMs: config.sync.lookbackHours * 3_600_000,
    safetyLagMs: config.sync.safetyLagSeconds * 1000,
    since: config.sync.since === undefined ? undefined : Date.parse(config.sync.since),
  };
}

/**
 * Open the mirror `file`, named by `origin` (`--db`, `CARDSYNC_DB`, the config file's `db`); a
 * file that cannot be opened, that this user cannot write (unless `options.writable` is false),
 * or that is newer than this cardsync is exit 2 naming `origin`, one whose migration waited past
 * the busy timeout on another writer is exit 5, one whose migration could not be written (a full
 * disk) or found the file damaged is {@link mirrorFailureExit}'s exit 1.
 */
export function openMirrorOrExit(
  file: string,
  origin: string,
  options: Pick<OpenMirrorOptions, 'writable'> = {},
): Mirror {
  try {
    return openMirror(file, options);
  } catch (error) {
    if (isMirrorBusy(error)) throw mirrorBusyExit(error);
    // A full disk or a file size limit met while the mirror was upgraded is not a setting to
    // fix: the migration was rolled back, and the next run goes on from the last one applied.
    if (error instanceof MirrorError && error.code === 'MIRROR_MIGRATION_FAILED') {
      const storage = mirrorFailureExit(error, { file, syncing: false });
      if (storage) throw storage;
    }
    if (error instanceof MirrorError)
      throw new ExitError(EXIT.USAGE, `${origin}: ${error.message}`, { cause: error });
    throw error;
  }
}
