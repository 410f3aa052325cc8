import type { RunningSandbox } from '../../src/sandbox/sandbox.js';

/** Where {@link insertDenseMillisecond} put its rows. */
export interface DenseMillisecond {
  /** The millisecond (epoch ms): an hour before the sandbox's now, within the lookback. */
  readonly at: number;
  readonly merchantId: string;
  readonly cardId: string;
}

/** The id of the `i`th row {@link insertDenseMillisecond} inserts. */
export function denseRowId(i: number): string {
  return `txn-dense-${String(i).padStart(6, '0')}`;
}

/**
 * Put `rows` zero-amount VERIFICATIONs of the sandbox's first card into one millisecond: a
 * window of one millisecond cannot be cut, so the sync reads them all however many there are.
 */
export function insertDenseMillisecond(sandbox: RunningSandbox, rows: number): DenseMillisecond {
  const { store, clock } = sandbox.context;
  const card = store.db
    .prepare('SELECT card_id AS cardId, merchant_id AS merchantId FROM cards LIMIT 1')
    .get() as { cardId: string; merchantId: string };
  const at = clock.now() - 3_600_000;
  store.atomically(() => {
    for (let i = 0; i < rows; i++)
      store.transactions.insert({
        transactionId: denseRowId(i),
        merchantId: card.merchantId,
        cardId: card.cardId,
        tradeNo: `trd-dense-${i}`,
        type: 'VERIFICATION',
        status: 'COMPLETED',
        amountMinor: 0,
        feeMinor: 0,
        currency: 'USD',
        merchantName: 'Dense Millisecond Shop',
        createdAt: at,
        visibleAt: at,
        posted: true,
        appliedEffectMinor: 0,
      });
  });
  return { at, ...card };
}
