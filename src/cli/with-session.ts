import type { CliIo } from './cli-io.js';
import { commandExit } from './command-errors.js';
import type { MerchantFlags } from './merchant-options.js';
import { type MerchantSession, openMerchantSession } from './merchant-session.js';

/** Open the merchant's client, run `work`, and turn upstream failures into exit codes. */
export async function withSession(
  io: CliIo,
  flags: MerchantFlags,
  what: string,
  work: (session: MerchantSession) => Promise<void>,
): Promise<void> {
  const session = await openMerchantSession(io, flags);
  try {
    await work(session);
  } catch (error) {
    throw commandExit(error, what, session.merchant);
  } finally {
    await session.close();
  }
}
