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
import { errorJson } from './error-json.js';
import { EXIT, type ExitCode, ExitError, UsageError } from './exit-codes.js';

/**
 * `text` with the value of an unknown `--name=value` option cut from commander's message, which
 * quotes the option whole: a key typed as a flag (`--api-key=sk_live_…`; a key is never a
 * command-line argument) would be repeated on stderr, in the `run finished` log line and in the
 * JSON error. A key holds no whitespace, so the quote ends where the line's last one does.
 */
function withoutOptionValue(text: string): string {
  return text.replace(/(unknown option '[^'=\n]*=)[^\n]*'/, "$1…'");
}

/**
 * The `cardsync` command tree. Registering a command loads only its names, options and help;
 * its action imports the module doing the work (src/cli/actions/) when it runs, so `--help` or
 * one command never pays for the memory of the others' dependencies (the nightly `sync` runs
 * under an RSS budget). test/cli/startup-modules.test.ts checks what start-up loads.
 */
export function buildProgram(
  io: CliIo,
  parserErr: (text: string) => void = (text) => io.stderr(text),
): Command {
  const output = {
    writeOut: (text: string) => io.stdout(text),
    writeErr: parserErr,
    outputError: (text: string, write: (text: string) => void) => write(withoutOptionValue(text)),
  };
  const program = new Command('cardsync')
    .description(
      'Mirror a merchant card-issuing API into SQLite, reconcile it, and report discrepancies.',
    )
    .version(VERSION, '-v, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput(output)
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
  for (const command of program.commands) command.exitOverride().configureOutput(output);
  return program;
}

/**
 * Run the CLI and return the exit code; only this function turns errors into codes. A command
 * run with `--json` that fails before printing its result prints one error object on stdout
 * ({@link errorJson}) besides the line on stderr, so a script always has a document to parse.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const started = Date.now();
  let printed = false;
  let json: boolean | undefined;
  // What the parser writes to stderr (its error line, the hint after it, help it was not asked
  // for) goes out once the command has ended, after a refused job's `run finished` line: JSON
  // lines first, then the plain text, as every other end of a job writes them.
  const parserErr: string[] = [];
  const program = buildProgram(
    {
      ...io,
      stdout: (text) => {
        printed = true;
        io.stdout(text);
      },
    },
    (text) => parserErr.push(text),
  );
  // Whether the command's action began: one that did logs its own end (`run finished`).
  let acting = false;
  program.hook('preAction', (_program, action) => {
    acting = true;
    json = action.opts().json === true;
  });
  const fail = (exitCode: ExitCode, error: unknown, message: string): ExitCode => {
    if (!printed && (json ?? asksForJson(program, argv)))
      io.stdout(`${JSON.stringify(errorJson(exitCode, error, message))}\n`);
    return exitCode;
  };
  try {
    await program.parseAsync(withoutHelpOfUnknown(program, argv), { from: 'user' });
    return EXIT.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version')
        return EXIT.OK;
      // Help commander shows unasked (no command, `cards` without its subcommand, `help bogus`)
      // went to stderr with exit code 1: a usage error. `help` and `help <command>` asked for it.
      if (error.code === 'commander.help') return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
      // Commander wrote its one-line message (held until the end).
      const refused = new UsageError(withoutOptionValue(error.message.replace(/^error: /, '')), {
        cause: error,
      });
      await logIfJob(program, argv, io, started, refused);
      return fail(EXIT.USAGE, refused, refused.message);
    }
    // A flag's own parser (`--log-level loud`) refused the command line before the action
    // began: a refused job still ends with its `run finished` line, as for commander's refusals.
    if (error instanceof UsageError && !acting) await logIfJob(program, argv, io, started, error);
    // A command that met the mirror's storage failing (a full disk importing orders, say) and
    // did not say which mirror: one line saying so, not an internal error.
    // Loaded only here: `--help` and the commands that never open the mirror stay light.
    const exit =
      error instanceof ExitError
        ? error
        : (await import('./mirror-failure-exit.js')).mirrorFailureExit(error, { syncing: false });
    if (exit) {
      io.stderr(`cardsync: ${exit.message}\n`);
      return fail(exit.exitCode, exit, exit.message);
    }
    const message = `internal error: ${error instanceof Error ? error.message : String(error)}`;
    io.stderr(`cardsync: ${message}\n`);
    return fail(EXIT.INTERNAL, error, message);
  } finally {
    for (const text of parserErr) io.stderr(text);
  }
}

/**
 * Log the `run finished` line of a `run`, `sync` or `reconcile` whose command line was refused
 * before its action began; other commands are no job and log nothing.
 */
async function logIfJob(
  program: Command,
  argv: readonly string[],
  io: CliIo,
  started: number,
  refused: UsageError,
): Promise<void> {
  const job = commandOf(program, argv);
  if (job === 'run' || job === 'sync' || job === 'reconcile')
    (await import('./refused-job-log.js')).logRefusedJob(io, job, started, refused);
}

/**
 * The top-level command `argv` names (`sync` in `sync --bogus`): its first word that is not an
 * option, as the parser takes it (`cardsync` itself has only `--help` and `--version`).
 */
function commandOf(program: Command, argv: readonly string[]): string | undefined {
  const word = argv.find((w) => !w.startsWith('-'));
  return program.commands
    .find((c) => c.name() === word || c.aliases().includes(word ?? ''))
    ?.name();
}

/**
 * `argv` without the `help` of `help <word>` when `<word>` is no command there, so that the
 * parser refuses the word as it refuses `cardsync <word>`: one line naming it, with the command
 * it may have meant, where commander printed the whole help unasked.
 * @example withoutHelpOfUnknown(program, ['help', 'synk']) // ['synk']: unknown command 'synk' (Did you mean sync?)
 */
function withoutHelpOfUnknown(program: Command, argv: readonly string[]): string[] {
  let command = program;
  for (const [i, word] of argv.entries()) {
    if (word.startsWith('-')) break;
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (word === 'help' && sub === undefined && command.commands.length > 0) {
      const next = argv[i + 1];
      const known = command.commands.some(
        (c) => c.name() === next || c.aliases().includes(next ?? ''),
      );
      return next === undefined || next.startsWith('-') || known
        ? [...argv]
        : [...argv.slice(0, i), ...argv.slice(i + 1)];
    }
    if (sub === undefined) break;
    command = sub;
  }
  return [...argv];
}

/**
 * Whether `argv` gives `--json` to a command that has it (or to a group whose commands have it),
 * for errors commander meets while parsing, before the action (and its parsed flags) exist.
 */
function asksForJson(program: Command, argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  const words = end < 0 ? argv : argv.slice(0, end);
  let command = program;
  for (const word of words) {
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) command = sub;
  }
  const hasJson = (c: Command) => c.options.some((o) => o.long === '--json');
  // A group (`cards --json`, no command after it) answers for its commands, which have it.
  return words.includes('--json') && (hasJson(command) || command.commands.some(hasJson));
}
