import type { Command } from 'commander';
import { createLogger } from '../../log/logger.js';
import { startSandbox } from '../../sandbox/sandbox.js';
import { VERSION } from '../../version.js';
import type { CliIo } from '../cli-io.js';
import {
  currencyListOption,
  delayOption,
  fractionOption,
  integerOption,
  logLevelOption,
} from '../option-parsers.js';

interface SandboxFlags {
  port: number;
  host: string;
  seed?: string;
  merchants: number;
  currency: string[];
  stateDir?: string;
  processingDelay: number | 'manual';
  failureRate: number;
  control: boolean;
  rateLimit?: number;
  logLevel: string;
}

/** `cardsync sandbox`: start the embedded service and print one JSON line describing it. */
export function registerSandboxCommand(program: Command, io: CliIo): void {
  program
    .command('sandbox')
    .description(
      'start the embedded card-issuing service over HTTPS; prints one JSON line on stdout',
    )
    .option(
      '--port <n>',
      'port to listen on (0 = any free port)',
      integerOption('--port', 0, 65_535),
      0,
    )
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--seed <seed>', 'seed of every deterministic choice (default "cardsync")')
    .option(
      '--merchants <n>',
      'merchant accounts in a fresh state',
      integerOption('--merchants', 1, 100),
      2,
    )
    .option(
      '--currency <codes>',
      'currencies of the merchants, in turn (e.g. USD,JPY)',
      currencyListOption('--currency'),
      ['USD'],
    )
    .option(
      '--state-dir <dir>',
      'keep state (and the TLS CA) here across restarts; in memory otherwise',
    )
    .option(
      '--processing-delay <ms>',
      'order processing delay in ms, or "manual"',
      delayOption('--processing-delay'),
      250,
    )
    .option(
      '--failure-rate <fraction>',
      'share of money orders that fail (0-1)',
      fractionOption('--failure-rate'),
      0,
    )
    .option('--control', 'enable the control surface (/_control, x-control-token)', false)
    .option(
      '--rate-limit <rps>',
      'requests per second per key before 429',
      integerOption('--rate-limit', 1, 1_000_000),
    )
    .option('--log-level <level>', 'log level on stderr', logLevelOption('--log-level'), 'info')
    .action(async (flags: SandboxFlags) => {
      const logger = createLogger({ level: flags.logLevel });
      const sandbox = await startSandbox({
        logger,
        port: flags.port,
        host: flags.host,
        seed: flags.seed,
        merchants: flags.merchants,
        currencies: flags.currency,
        stateDir: flags.stateDir,
        processingDelayMs: flags.processingDelay,
        failureRate: flags.failureRate,
        control: flags.control,
        rateLimitPerSecond: flags.rateLimit,
      });
      io.stdout(
        `${JSON.stringify({
          baseUrl: sandbox.baseUrl,
          caFile: sandbox.caFile,
          merchants: sandbox.merchants,
          stateDir: sandbox.stateDir,
          controlToken: sandbox.controlToken,
          seed: sandbox.seed,
          version: VERSION,
        })}\n`,
      );
      await io.untilStopped();
      logger.info('stopping sandbox');
      await sandbox.close();
      logger.flush();
    });
}
