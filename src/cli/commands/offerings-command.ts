import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { addMerchantOptions, type MerchantFlags } from '../merchant-options.js';

/** `cardsync offerings`: the card offerings available to the merchant, with limits and fees. */
export function registerOfferingsCommand(program: Command, io: CliIo): void {
  addMerchantOptions(
    program
      .command('offerings')
      .description('the card offerings available to the merchant, with limits and fees'),
    { journal: false },
  ).action(async (flags: MerchantFlags) => {
    const { offeringsAction } = await import('../actions/offerings-action.js');
    await offeringsAction(io, flags);
  });
}
