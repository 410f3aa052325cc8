import type { TransactionStatus, TransactionType } from '../../contract/index.js';
import type { Minor } from '../../money/decimal.js';

/**
 * What a transaction in a given status does to its card's balance (reference-model section 4),
 * in minor units. `fee` is the transaction's own fee field.
 * @example transactionEffect('PURCHASE', 'PENDING', 1000, 25) // -1025
 */
export function transactionEffect(
  type: TransactionType,
  status: TransactionStatus,
  amount: Minor,
  fee: Minor,
): Minor {
  if (status === 'DECLINED') return 0;
  switch (type) {
    case 'PURCHASE':
      return -(amount + fee);
    case 'REFUND':
    case 'REVERSAL':
      return status === 'PENDING' ? 0 : amount - fee;
    case 'VERIFICATION':
      return status === 'PENDING' ? 0 : -fee;
    case 'FEE':
      return -amount;
  }
}
