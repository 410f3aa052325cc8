import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { addMerchantOptions, type MerchantFlags } from '../merchant-options.js';

/** `cardsync balance`: the merchant balance that funds issuance and deposits. */
export function registerBalanceCommand(program: Command, io: CliIo): void {
  addMerchantOptions(
    program.command('balance').description('the merchant balance that funds issuance and deposits'),
    { journal: false },
  ).action(async (flags: MerchantFlags) => {
    const { balanceAction } = await import('../actions/balance-action.js');
    await balanceAction(io, flags);
  });
}
