import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { nonEmptyOption } from '../option-parsers.js';

/** The flags every `cardsync findings` subcommand takes. */
export interface MirrorFlags {
  config?: string;
  db?: string;
  json: boolean;
}

/** The flags of `cardsync findings list`. */
export interface ListFindingsFlags extends MirrorFlags {
  all: boolean;
}

/** The flags of `cardsync findings ack`. */
export interface AckFindingFlags extends MirrorFlags {
  reason: string;
  until: string;
}

/** `cardsync findings list|ack`: the findings kept across reconciliations. */
export function registerFindingsCommand(program: Command, io: CliIo): void {
  const findings = program
    .command('findings')
    .description('list and acknowledge the findings kept across reconciliations');

  withMirrorOptions(
    findings
      .command('list')
      .description('list open findings (new, persisting, acknowledged)')
      .option('--all', 'include resolved findings', false),
  ).action(async (flags: ListFindingsFlags) => {
    const { listFindingsAction } = await import('../actions/findings-actions.js');
    await listFindingsAction(io, flags);
  });

  withMirrorOptions(
    findings
      .command('ack')
      .description('acknowledge a finding: out of the main report until a date or a change')
      .argument(
        '<fingerprint>',
        'the finding, as the reports and `findings list` print it',
        nonEmptyOption('FINGERPRINT', 'a fingerprint as the reports print it'),
      )
      .requiredOption('--reason <text>', 'why the finding is acceptable for now')
      .requiredOption(
        '--until <date>',
        'when it comes back: ISO 8601 date (UTC midnight) or date-time',
      ),
  ).action(async (fingerprint: string, flags: AckFindingFlags) => {
    const { ackFindingAction } = await import('../actions/findings-actions.js');
    await ackFindingAction(io, fingerprint, flags);
  });
}

function withMirrorOptions(command: Command): Command {
  return command
    .option('--config <file>', 'JSON configuration file')
    .option('--db <file>', 'the SQLite mirror (CARDSYNC_DB; default ./data/cardsync.sqlite)')
    .option('--json', 'print JSON on stdout', false);
}
