import type { Command } from 'commander';
import { balanceText } from '../card-output.js';
import type { CliIo } from '../cli-io.js';
import { addMerchantOptions, type MerchantFlags } from '../merchant-options.js';
import { withSession } from './cards-command.js';

/** `cardsync balance`: the merchant balance that funds issuance and deposits. */
export function registerBalanceCommand(program: Command, io: CliIo): void {
  addMerchantOptions(
    program.command('balance').description('the merchant balance that funds issuance and deposits'),
    { journal: false },
  ).action((flags: MerchantFlags) =>
    withSession(io, flags, 'balance', async ({ api }) => {
      const balance = await api.getMerchantBalance({ signal: io.signal });
      io.stdout(flags.json ? `${JSON.stringify(balance)}\n` : balanceText(balance));
    }),
  );
}
