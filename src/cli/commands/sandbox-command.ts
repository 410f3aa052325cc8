import type { Command } from 'commander';
import { createLogger } from '../../log/logger.js';
import { FaultConfigError } from '../../sandbox/faults/fault-config-error.js';
import { loadFaultProfile } from '../../sandbox/faults/fault-profile.js';
import type { FaultRule } from '../../sandbox/faults/fault-rule.js';
import { parseFaultRule } from '../../sandbox/faults/parse-fault-rules.js';
import { startSandbox } from '../../sandbox/sandbox.js';
import { SandboxStateError } from '../../sandbox/store/database.js';
import { VERSION } from '../../version.js';
import type { CliIo } from '../cli-io.js';
import { UsageError } from '../exit-codes.js';
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
  faults?: string;
  fault: string[];
  cards?: number;
  transactions?: number;
  days: number;
  anomalies?: number | true;
  activityRate?: number;
  logLevel: string;
}

/** Planted findings per check code when `--anomalies` is given without a number. */
const DEFAULT_ANOMALIES = 3;

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
    .option('--faults <file>', 'fault lab profile: a JSON file {"rules": [...]} (docs/sandbox.md)')
    .option(
      '--fault <json>',
      'one fault rule as inline JSON, e.g. \'{"kind":"rate-limit","retryAfterSeconds":1,"times":3}\' (repeatable; added to --faults)',
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .option(
      '--cards <n>',
      'generate a seeded history with this many cards',
      integerOption('--cards', 1, 10_000_000),
    )
    .option(
      '--transactions <n>',
      'transactions in the generated history (default 10 per card)',
      integerOption('--transactions', 1, 100_000_000),
    )
    .option('--days <n>', 'days of generated history', integerOption('--days', 1, 3_650), 90)
    .option(
      '--anomalies [n]',
      `plant n findings of every check code (default ${DEFAULT_ANOMALIES}) and write a ground-truth manifest`,
      integerOption('--anomalies', 0, 1_000),
    )
    .option(
      '--activity-rate <per-second>',
      'keep the world moving: new transactions and status changes per second',
      integerOption('--activity-rate', 1, 100_000),
    )
    .option('--log-level <level>', 'log level on stderr', logLevelOption('--log-level'), 'info')
    .action(async (flags: SandboxFlags) => {
      if (
        flags.cards === undefined &&
        (flags.transactions !== undefined || flags.anomalies !== undefined)
      ) {
        throw new UsageError('--transactions and --anomalies need --cards');
      }
      const cards = flags.cards;
      if (cards !== undefined && flags.transactions !== undefined && flags.transactions < cards) {
        throw new UsageError(
          `--transactions must be at least --cards (${cards}): every card has its issuance FEE record`,
        );
      }
      const faults = [
        ...(flags.faults === undefined ? [] : await readProfile(flags.faults)),
        ...flags.fault.map((json, i) => inlineRule(json, i)),
      ];
      const logger = createLogger({ level: flags.logLevel });
      const sandbox = await startSandbox({
        logger,
        signal: io.signal,
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
        faults,
        ...(cards === undefined
          ? {}
          : {
              world: {
                cards,
                transactions: flags.transactions ?? cards * 10,
                days: flags.days,
                anomaliesPerCode:
                  flags.anomalies === true ? DEFAULT_ANOMALIES : (flags.anomalies ?? 0),
              },
            }),
        ...(flags.activityRate === undefined ? {} : { activityPerSecond: flags.activityRate }),
      }).catch((error: unknown) => {
        // Stopped while starting (a large world takes minutes to generate): a clean stop.
        if (io.signal.aborted && error === io.signal.reason) return undefined;
        if (error instanceof SandboxStateError) {
          throw new UsageError(`--state-dir ${flags.stateDir}: ${error.message}`);
        }
        throw error;
      });
      if (!sandbox) {
        logger.info('stopped before the sandbox was ready');
        logger.flush();
        return;
      }
      io.stdout(
        `${JSON.stringify({
          baseUrl: sandbox.baseUrl,
          caFile: sandbox.caFile,
          merchants: sandbox.merchants,
          groundTruthFile: sandbox.groundTruthFile,
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

/** The rules of a fault profile; a bad file is a usage error naming the field. */
async function readProfile(file: string): Promise<FaultRule[]> {
  try {
    return await loadFaultProfile(file);
  } catch (error) {
    if (error instanceof FaultConfigError) {
      throw new UsageError(`--faults ${file}: ${error.problems.join('; ')}`);
    }
    throw error;
  }
}

/** A rule given inline with `--fault`; bad JSON or a bad field is a usage error naming it. */
function inlineRule(json: string, index: number): FaultRule {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new UsageError(`--fault #${index + 1} is not JSON: ${json}`);
  }
  try {
    return parseFaultRule(value, `--fault #${index + 1}`);
  } catch (error) {
    if (error instanceof FaultConfigError) throw new UsageError(error.problems.join('; '));
    throw error;
  }
}
