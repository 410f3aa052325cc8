import type { OrderKind } from '../../contract/index.js';
import type { Minor } from '../../money/decimal.js';

/** An order as the service understands it, amounts already in minor units. */
export interface OrderRequest {
  readonly kind: OrderKind;
  readonly merchantOrderNo: string;
  readonly cardId?: string | undefined;
  readonly offeringId?: string | undefined;
  readonly holderId?: string | undefined;
  readonly amountMinor?: Minor | undefined;
}

/**
 * The parameters that make two requests "the same order" for idempotency, as canonical text:
 * `"10"` and `"10.00"` are the same amount, so minor units are compared, not the text.
 */
export function orderParams(request: OrderRequest): string {
  return JSON.stringify([
    request.kind,
    request.cardId ?? null,
    request.offeringId ?? null,
    request.holderId ?? null,
    request.amountMinor ?? null,
  ]);
}
