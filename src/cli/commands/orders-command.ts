import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { addMerchantOptions, type MerchantFlags } from '../merchant-options.js';
import { nonEmptyOption } from '../option-parsers.js';
import { merchantOrderNoOption } from '../order-option-parsers.js';

/** The flags of `cardsync orders import`. */
export interface ImportFlags {
  readonly merchant?: string;
  readonly config?: string;
  readonly db?: string;
  readonly json: boolean;
}

/** The flags of `cardsync orders settle`. */
export interface SettleFlags extends MerchantFlags {
  readonly merchantOrderNo?: string;
}

/** `cardsync orders import|settle`: the merchant's order journal (docs/journal.md). */
export function registerOrdersCommand(program: Command, io: CliIo): void {
  const orders = program.command('orders').description("the merchant's order journal");

  orders
    .command('import')
    .description(
      "import a merchant's order journal (CSV, reference-model section 5): all rows or none; the same file twice changes nothing",
    )
    .argument('<file>', 'the journal file', nonEmptyOption('FILE', 'a path'))
    .option(
      '--merchant <id>',
      'whose books these are; may be left out when the configuration or the mirror names one merchant',
    )
    .option('--config <file>', 'JSON configuration file')
    .option('--db <file>', 'the mirror (CARDSYNC_DB; default ./data/cardsync.sqlite)')
    .option('--json', 'print the result as JSON on stdout', false)
    .action(async (file: string, flags: ImportFlags) => {
      const { importOrdersAction } = await import('../actions/order-actions.js');
      await importOrdersAction(io, file, flags);
    });

  addMerchantOptions(
    orders
      .command('settle')
      .description(
        'resend the orders journaled SUBMITTED (a crash or a lost answer left them) so their outcome is recorded',
      ),
    { journal: true },
  )
    .option(
      '--merchant-order-no <ref>',
      'settle only this order',
      merchantOrderNoOption('--merchant-order-no'),
    )
    .action(async (flags: SettleFlags) => {
      const { settleOrdersAction } = await import('../actions/order-actions.js');
      await settleOrdersAction(io, flags);
    });
}
