import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { integerOption, logLevelOption, nonEmptyOption } from '../option-parsers.js';

/** The flags of `cardsync demo`, as commander gives them. */
export interface DemoFlags {
  readonly dir: string;
  readonly cards: number;
  readonly transactions: number;
  readonly anomalies: number;
  readonly seed?: string;
  readonly json: boolean;
  readonly logLevel?: string;
}

/**
 * `cardsync demo`: start the embedded service with a generated history and planted findings,
 * run the nightly job against it, and say where the reports and the mirror are. The service and
 * the job are imported only when the command runs.
 */
export function registerDemoCommand(program: Command, io: CliIo): void {
  program
    .command('demo')
    .description(
      'start the embedded service with generated history and planted discrepancies, run the nightly job against it, and print where the reports and the mirror are',
    )
    .option(
      '--dir <dir>',
      'the demo folder: its demo files are replaced on each demo; refused unless empty or a demo folder',
      './demo',
    )
    .option(
      '--cards <n>',
      'cards in the generated history (split over the merchants)',
      integerOption('--cards', 1, 10_000_000),
      2_000,
    )
    .option(
      '--transactions <n>',
      'transactions in the generated history, order FEE records included',
      integerOption('--transactions', 1, 100_000_000),
      20_000,
    )
    .option(
      '--anomalies <n>',
      'planted findings of every check code the upstream can cause (0 = a clean world)',
      integerOption('--anomalies', 0, 1_000),
      2,
    )
    .option(
      '--seed <seed>',
      'seed of the generated world (default "cardsync")',
      nonEmptyOption('--seed', 'a seed of 1 character or more'),
    )
    .option('--json', 'print the result as JSON on stdout', false)
    .option(
      '--log-level <level>',
      'log level on stderr (default warn on a terminal, info otherwise)',
      logLevelOption('--log-level'),
    )
    .action(async (flags: DemoFlags) => {
      const { demoAction } = await import('../actions/demo-action.js');
      await demoAction(io, flags);
    });
}
