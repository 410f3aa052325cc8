import type { Logger } from 'pino';
import { CardIssuingClient, ClientConfigError } from '../api/index.js';
import type { JobConfig, MerchantSource } from '../config/index.js';
import type { CliIo } from './cli-io.js';
import { commandLogger } from './command-logger.js';
import { UsageError } from './exit-codes.js';
import { clientProxy, loadConfig } from './job-setup.js';
import { configFlagsOf, type MerchantFlags } from './merchant-options.js';

/** One configured merchant, its client and a logger, for a command's duration. */
export interface MerchantSession {
  readonly config: JobConfig;
  readonly merchant: MerchantSource;
  readonly api: CardIssuingClient;
  readonly logger: Logger;
  close(): Promise<void>;
}

/**
 * Read the configuration, pick the merchant (`--merchant` by name or id; needed only when the
 * config file names several) and build its client. Every failure is a usage error (exit 2)
 * raised before any request.
 */
export async function openMerchantSession(
  io: CliIo,
  flags: MerchantFlags,
): Promise<MerchantSession> {
  const config = await loadConfig(io, configFlagsOf(flags), true);
  const merchant = pickMerchant(config.merchants, flags.merchant);
  const logger = commandLogger(io, flags.logLevel);
  if (merchant.keyWarning) logger.warn({ source: merchant.name }, merchant.keyWarning);
  let api: CardIssuingClient;
  try {
    api = new CardIssuingClient({
      baseUrl: merchant.baseUrl,
      apiKey: merchant.apiKey,
      ...(merchant.ca === undefined ? {} : { ca: merchant.ca }),
      concurrency: 2,
      ...(config.proxy === undefined ? {} : { proxy: clientProxy(config.proxy) }),
      logger: logger.child({ source: merchant.name }),
    });
  } catch (error) {
    if (error instanceof ClientConfigError)
      throw new UsageError(`merchant configuration: ${error.message}`, { cause: error });
    throw error;
  }
  return {
    config,
    merchant,
    api,
    logger,
    close: async () => {
      await api.close();
      logger.flush();
    },
  };
}

function pickMerchant(
  merchants: readonly MerchantSource[],
  wanted: string | undefined,
): MerchantSource {
  const names = merchants.map((m) => m.name).join(', ');
  if (wanted === undefined) {
    const [only, ...others] = merchants;
    if (only && others.length === 0) return only;
    throw new UsageError(
      `--merchant: expected the merchant to use; the configuration names ${merchants.length} (${names})`,
    );
  }
  const found = merchants.find((m) => m.name === wanted || m.merchantId === wanted);
  if (!found)
    throw new UsageError(
      `--merchant: expected a configured merchant name or id (${names}), got ${JSON.stringify(wanted)}`,
    );
  return found;
}
