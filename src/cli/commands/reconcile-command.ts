import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { logLevelOption } from '../option-parsers.js';
import { addReconOptions, type ReconFlags } from '../recon-options.js';

/** The flags of `cardsync reconcile`, as commander gives them. */
export interface ReconcileFlags extends ReconFlags {
  config?: string;
  db?: string;
  json: boolean;
  logLevel?: string;
}

/** `cardsync reconcile`: run the checks on the mirror, record the findings, write the reports. */
export function registerReconcileCommand(program: Command, io: CliIo): void {
  addReconOptions(
    program
      .command('reconcile')
      .description(
        'run the checks of reference-model.md section 6 on the mirror and write the reports',
      )
      .option('--config <file>', 'JSON configuration file')
      .option('--db <file>', 'the SQLite mirror (CARDSYNC_DB; default ./data/cardsync.sqlite)')
      .option('--json', 'print the result as JSON on stdout', false)
      .option(
        '--log-level <level>',
        'pino level for the JSON logs on stderr',
        logLevelOption('--log-level'),
      ),
  ).action(async (flags: ReconcileFlags) => {
    const { reconcileAction } = await import('../actions/reconcile-action.js');
    await reconcileAction(io, flags);
  });
}
