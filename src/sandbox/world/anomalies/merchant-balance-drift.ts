import type { Minor } from '../../../money/decimal.js';
import type { SandboxContext } from '../../sandbox-context.js';
import type { PlantedFinding } from '../ground-truth.js';

/**
 * Move a merchant's balance with nothing in its journal to explain it, as an upstream charging
 * an unannounced fee would. Between two syncs this is a MERCHANT_BALANCE_MISMATCH (it needs two
 * balance snapshots, so a single generated world cannot hold it).
 * @returns the finding to expect, for the ground-truth manifest.
 */
export function plantMerchantBalanceDrift(
  ctx: SandboxContext,
  merchantId: string,
  delta: Minor,
): PlantedFinding {
  ctx.store.merchants.adjustBalance(merchantId, delta);
  return {
    check: 'MERCHANT_BALANCE_MISMATCH',
    merchantId,
    detail: `merchant balance moved by ${delta} minor units with no journal entry`,
  };
}
