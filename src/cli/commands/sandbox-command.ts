import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import {
  currencyListOption,
  delayOption,
  fractionOption,
  integerOption,
  logLevelOption,
  nonEmptyOption,
} from '../option-parsers.js';

/** The flags of `cardsync sandbox`, as commander gives them. */
export interface SandboxFlags {
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
  /** Accepted as every command accepts it; the line is JSON either way. */
  json: boolean;
}

/** Planted findings per check code when `--anomalies` is given without a number. */
export const DEFAULT_ANOMALIES = 3;

/**
 * `cardsync sandbox`: start the embedded service and print one JSON line describing it. The
 * service (Fastify, the store, the world generator) is imported only when the command runs.
 */
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
    .option(
      '--host <address>',
      'address to listen on',
      nonEmptyOption('--host', 'an address or host name'),
      '127.0.0.1',
    )
    .option(
      '--seed <seed>',
      'seed of every deterministic choice (default "cardsync")',
      nonEmptyOption('--seed', 'a seed of 1 character or more'),
    )
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
      nonEmptyOption('--state-dir', 'a path'),
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
    .option(
      '--faults <file>',
      'fault lab profile: a JSON file {"rules": [...]} (docs/sandbox.md)',
      nonEmptyOption('--faults', 'a path'),
    )
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
    // job-interface.md promises machine output with --json on every command; this one's line
    // is JSON already, so a script that passes --json everywhere must not be refused here.
    .option('--json', 'machine output: the same one JSON line (it is JSON either way)', false)
    .action(async (flags: SandboxFlags) => {
      const { sandboxAction } = await import('../actions/sandbox-action.js');
      await sandboxAction(io, flags);
    });
}
