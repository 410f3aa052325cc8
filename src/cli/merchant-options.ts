import type { Command } from 'commander';
import type { ConfigFlags } from '../config/index.js';
import { logLevelOption } from './option-parsers.js';

/** The flags of the commands that talk to one merchant's upstream (cards, balance, orders). */
export interface MerchantFlags {
  readonly config?: string;
  readonly db?: string;
  readonly baseUrl?: string;
  readonly caFile?: string;
  readonly merchantId?: string;
  /** Which configured merchant, by name or merchant id, when the config file names several. */
  readonly merchant?: string;
  readonly json: boolean;
  readonly logLevel?: string;
}

/** Add the configuration flags of a command that talks to one merchant. */
export function addMerchantOptions(command: Command, options: { journal: boolean }): Command {
  command
    .option('--config <file>', 'JSON configuration file')
    .option('--base-url <url>', 'the upstream, https:// only (CARDSYNC_BASE_URL)')
    .option('--ca-file <file>', 'extra trusted CA for the upstream, PEM (CARDSYNC_CA_FILE)')
    .option(
      '--merchant <name>',
      'the configured merchant to use (by name or id) when there are several',
    );
  if (options.journal)
    command
      .option('--db <file>', 'the mirror holding the order journal (CARDSYNC_DB)')
      .option(
        '--merchant-id <id>',
        'the merchant id orders are journaled for (CARDSYNC_MERCHANT_ID)',
      );
  return command
    .option('--json', 'print the result as JSON on stdout', false)
    .option(
      '--log-level <level>',
      'pino level for the JSON logs on stderr',
      logLevelOption('--log-level'),
    );
}

/** The configuration part of the flags. */
export function configFlagsOf(flags: MerchantFlags): ConfigFlags {
  return {
    ...(flags.config === undefined ? {} : { config: flags.config }),
    ...(flags.db === undefined ? {} : { db: flags.db }),
    ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
    ...(flags.caFile === undefined ? {} : { caFile: flags.caFile }),
    ...(flags.merchantId === undefined ? {} : { merchantId: flags.merchantId }),
  };
}
