import { MalformedRecordError } from '../api/index.js';
import type { MerchantBalance } from '../contract/index.js';
import { quarantineEntries } from './quarantine-entries.js';
import type { MerchantSyncContext } from './sync-context.js';
import type { MerchantSyncResult, ResourceCounts } from './sync-result.js';
import { isoTime } from './time-range.js';

/** Read the offerings and record their terms (a new version when any term changed). */
export async function syncOfferings(
  context: MerchantSyncContext,
  merchantId: string,
): Promise<ResourceCounts> {
  const list = await context.api.listOfferings({ signal: context.signal });
  const write = { merchantId, runId: context.runId, observedAt: isoTime(context.clock()) };
  return context.writers.atomically(() => {
    const written = context.writers.offerings.write(list.records, write);
    const quarantined = context.writers.quarantine.write(
      quarantineEntries('offerings', list.rejected),
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
 * Read the merchant balance and add a snapshot; the merchant's currency is learnt from it. A
 * malformed balance is quarantined (`merchant_balance`) and the run goes on without a snapshot.
 */
export async function syncBalance(
  context: MerchantSyncContext,
  merchantId: string,
): Promise<MerchantSyncResult['balance']> {
  const at = isoTime(context.clock());
  const merchant = { merchantId, source: context.source, baseUrl: context.baseUrl };
  let balance: MerchantBalance;
  try {
    balance = await context.api.getMerchantBalance({ signal: context.signal });
  } catch (error) {
    if (!(error instanceof MalformedRecordError)) throw error;
    context.writers.atomically(() => {
      context.writers.merchants.upsertMerchant(merchant, at);
      context.writers.quarantine.write(quarantineEntries('merchant_balance', [error]), {
        merchantId,
        runId: context.runId,
        observedAt: at,
      });
    });
    return { outcome: 'quarantined', balance: null, currency: null };
  }
  context.writers.atomically(() => {
    context.writers.merchants.upsertMerchant(merchant, at, balance.currency);
    context.writers.merchants.addBalance(balance, {
      merchantId,
      runId: context.runId,
      observedAt: at,
    });
  });
  return { outcome: 'done', balance: balance.balance, currency: balance.currency };
}
