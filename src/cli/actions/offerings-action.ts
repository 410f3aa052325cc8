import { offeringsText } from '../card-output.js';
import type { CliIo } from '../cli-io.js';
import type { MerchantFlags } from '../merchant-options.js';
import { withSession } from '../with-session.js';

/** The body of `cardsync offerings`: the merchant's offerings, as a table or JSON. */
export async function offeringsAction(io: CliIo, flags: MerchantFlags): Promise<void> {
  await withSession(io, flags, 'offerings', async ({ api }) => {
    const offerings = await api.listOfferings({ signal: io.signal });
    io.stdout(
      flags.json
        ? `${JSON.stringify({ data: offerings.records, malformed: offerings.rejected.length })}\n`
        : offeringsText(offerings.records),
    );
  });
}
