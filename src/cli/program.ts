import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';
import type { CliIo } from './cli-io.js';
import { registerBalanceCommand } from './commands/balance-command.js';
import { registerCardsCommand } from './commands/cards-command.js';
import { registerDemoCommand } from './commands/demo-command.js';
import { registerFindingsCommand } from './commands/findings-command.js';
import { registerOfferingsCommand } from './commands/offerings-command.js';
import { registerOpenApiCommand } from './commands/openapi-command.js';
import { registerOrdersCommand } from './commands/orders-command.js';
import { registerReconcileCommand } from './commands/reconcile-command.js';
import { registerRunCommand } from './commands/run-command.js';
import { registerSandboxCommand } from './commands/sandbox-command.js';
import { registerScheduleCommand } from './commands/schedule-command.js';
import { registerSyncCommand } from './commands/sync-command.js';
import { EXIT, ExitError } from './exit-codes.js';

/**
 * The `cardsync` command tree. Registering a command loads only its names, options and help;
 * its action imports the module doing the work (src/cli/actions/) when it runs, so `--help` or
 * one command never pays for the memory of the others' dependencies (the nightly `sync` runs
 * under an RSS budget). test/cli/startup-modules.test.ts checks what start-up loads.
 */
export function buildProgram(io: CliIo): Command {
  const program = new Command('cardsync')
    .description(
      'Mirror a merchant card-issuing API into SQLite, reconcile it, and report discrepancies.',
    )
    .version(VERSION, '-v, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) })
    .exitOverride();
  registerRunCommand(program, io);
  registerSyncCommand(program, io);
  registerReconcileCommand(program, io);
  registerScheduleCommand(program, io);
  registerSandboxCommand(program, io);
  registerDemoCommand(program, io);
  registerOpenApiCommand(program, io);
  registerFindingsCommand(program, io);
  registerOrdersCommand(program, io);
  registerCardsCommand(program, io);
  registerBalanceCommand(program, io);
  registerOfferingsCommand(program, io);
  for (const command of program.commands)
    command
      .exitOverride()
      .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) });
  return program;
}

/**
 * Run the CLI and return the exit code; only this function turns errors into codes.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version')
        return EXIT.OK;
      // Help commander shows unasked (no command, `cards` without its subcommand, `help bogus`)
      // went to stderr with exit code 1: a usage error. `help` and `help <command>` asked for it.
      if (error.code === 'commander.help') return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
      // Commander already printed its one-line message.
      return EXIT.USAGE;
    }
    if (error instanceof ExitError) {
      io.stderr(`cardsync: ${error.message}\n`);
      return error.exitCode;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`cardsync: internal error: ${message}\n`);
    return EXIT.INTERNAL;
  }
}
