import type { Command } from 'commander';
import { offeringsText } from '../card-output.js';
import type { CliIo } from '../cli-io.js';
import { addMerchantOptions, type MerchantFlags } from '../merchant-options.js';
import { withSession } from './cards-command.js';

/** `cardsync offerings`: the card offerings available to the merchant, with limits and fees. */
export function registerOfferingsCommand(program: Command, io: CliIo): void {
  addMerchantOptions(
    program
      .command('offerings')
      .description('the card offerings available to the merchant, with limits and fees'),
    { journal: false },
  ).action((flags: MerchantFlags) =>
    withSession(io, flags, 'offerings', async ({ api }) => {
      const offerings = await api.listOfferings({ signal: io.signal });
      io.stdout(
        flags.json
          ? `${JSON.stringify({ data: offerings.records, malformed: offerings.rejected.length })}\n`
          : offeringsText(offerings.records),
      );
    }),
  );
}
