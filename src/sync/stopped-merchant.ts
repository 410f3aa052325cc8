import type { MerchantSyncResult, SyncResult } from './sync-result.js';

/**
 * The merchant whose sync gave the run its outcome: the first whose own outcome is the run's,
 * else the first that stopped with an error. A refused key outranks an unavailable upstream, so
 * on a night with both it is the merchant whose key was refused, not the first in the list.
 * @example refusedKeyMessage(sources.find((s) => s.name === stoppedMerchant(result)?.source))
 */
export function stoppedMerchant(
  sync: Pick<SyncResult, 'outcome' | 'merchants'>,
): MerchantSyncResult | undefined {
  return (
    sync.merchants.find((m) => m.outcome === sync.outcome && m.error) ??
    sync.merchants.find((m) => m.error)
  );
}
