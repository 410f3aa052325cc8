import { balanceText } from '../card-output.js';
import type { CliIo } from '../cli-io.js';
import type { MerchantFlags } from '../merchant-options.js';
import { withSession } from '../with-session.js';

/** The body of `cardsync balance`: the merchant balance, as text or JSON. */
export async function balanceAction(io: CliIo, flags: MerchantFlags): Promise<void> {
  await withSession(io, flags, 'balance', async ({ api }) => {
    const balance = await api.getMerchantBalance({ signal: io.signal });
    io.stdout(flags.json ? `${JSON.stringify(balance)}\n` : balanceText(balance));
  });
}
