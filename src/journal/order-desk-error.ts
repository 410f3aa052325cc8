/** Why the order desk did not send an order. */
export type OrderDeskErrorCode =
  /** The order itself is wrong (amount, merchantOrderNo, unknown currency); nothing written. */
  | 'ORDER_INVALID'
  /** The merchantOrderNo is journaled with other parameters, for another merchant, or as an
   * imported order; nothing written or sent. */
  | 'ORDER_CONFLICT'
  /** No journaled order has this merchantOrderNo (settling one). */
  | 'ORDER_NOT_FOUND'
  /** The upstream answered but the journal could not record it; the row stays SUBMITTED. */
  | 'JOURNAL_WRITE_FAILED';

/**
 * An order the desk refused before sending, or an answer it could not journal.
 * @example if (error instanceof OrderDeskError && error.code === 'ORDER_CONFLICT') ...
 */
export class OrderDeskError extends Error {
  readonly code: OrderDeskErrorCode;
  readonly merchantOrderNo: string;

  constructor(
    code: OrderDeskErrorCode,
    merchantOrderNo: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OrderDeskError';
    this.code = code;
    this.merchantOrderNo = merchantOrderNo;
  }
}
