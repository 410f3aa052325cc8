import { MalformedRecordError } from '../api/index.js';
import type { MerchantBalance } from '../contract/index.js';
import type { QuarantinedRecord } from '../mirror/quarantine-writer.js';
import { quarantineEntries } from './quarantine-entries.js';
import { balanceProblem, screenOfferings } from './record-screen.js';
import { type MerchantSyncContext, readTime } from './sync-context.js';
import type { MerchantSyncResult, ResourceCounts } from './sync-result.js';
import { isoTime } from './time-range.js';

/**
 * Read the offerings and record their terms (a new version when any term changed), stamped with
 * the read's time on the upstream's clock.
 */
export async function syncOfferings(
  context: MerchantSyncContext,
  merchantId: string,
): Promise<ResourceCounts> {
  const list = await context.api.listOfferings({ signal: context.signal });
  // On the upstream's clock, like every read the reconciliation holds against orders.
  const write = { merchantId, runId: context.runId, observedAt: isoTime(readTime(context)) };
  const { kept, refused } = screenOfferings(list.records);
  return context.writers.atomically(() => {
    const written = context.writers.offerings.write(kept, write);
    const quarantined = context.writers.quarantine.write(
      [...quarantineEntries('offerings', list.rejected), ...refused],
      write,
    );
    return {
      outcome: 'done',
      fetched: list.records.length + list.rejected.length,
      ...written,
      quarantined,
    };
  });
}

/**
 * Read the merchant balance and add a snapshot, stamped with the read's time on the upstream's
 * clock; the merchant's currency is learnt from it. A balance that is malformed, or too large to
 * hold exactly, is quarantined (`merchant_balance`) and the run goes on without a snapshot.
 */
export async function syncBalance(
  context: MerchantSyncContext,
  merchantId: string,
): Promise<MerchantSyncResult['balance']> {
  const read = await readBalance(context);
  // On the upstream's clock, as the orders placed from the command line are journaled: the
  // check of the merchant balance sums the orders submitted between two snapshots.
  const at = isoTime(readTime(context));
  const merchant = { merchantId, source: context.source, baseUrl: context.baseUrl };
  const write = { merchantId, runId: context.runId, observedAt: at };
  if ('refused' in read) {
    context.writers.atomically(() => {
      context.writers.merchants.upsertMerchant(merchant, at);
      context.writers.quarantine.write([read.refused], write);
    });
    return { outcome: 'quarantined', balance: null, currency: null };
  }
  const { balance } = read;
  context.writers.atomically(() => {
    context.writers.merchants.upsertMerchant(merchant, at, balance.currency);
    context.writers.merchants.addBalance(balance, write);
  });
  return { outcome: 'done', balance: balance.balance, currency: balance.currency };
}

/** The merchant balance, or the quarantine row of one that cannot be kept. */
async function readBalance(
  context: MerchantSyncContext,
): Promise<{ balance: MerchantBalance } | { refused: QuarantinedRecord }> {
  try {
    const balance = await context.api.getMerchantBalance({ signal: context.signal });
    const reason = balanceProblem(balance);
    if (reason === null) return { balance };
    return { refused: { resource: 'merchant_balance', recordId: undefined, reason, raw: balance } };
  } catch (error) {
    if (!(error instanceof MalformedRecordError)) throw error;
    return { refused: quarantineEntries('merchant_balance', [error])[0] as QuarantinedRecord };
  }
}
