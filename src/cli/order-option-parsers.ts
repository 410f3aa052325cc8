import { CARD_STATUSES, type CardStatus } from '../contract/card-statuses.js';
import { isMerchantOrderNo } from '../journal/merchant-order-no.js';
import { checkOrderAmount } from '../journal/order-amount.js';
import { currencyExponent } from '../money/currency.js';
import { UsageError } from './exit-codes.js';

/**
 * An order's flag given twice: commander would keep the last one, and which amount, offering or
 * reference an order goes out with must not be a guess.
 */
function refuseRepeat(flag: string, value: string, previous: string | undefined): void {
  if (previous !== undefined)
    throw new UsageError(
      `${flag}: expected once, got ${JSON.stringify(previous)} and ${JSON.stringify(value)}`,
    );
}

/** An order amount: a positive decimal such as 25.00; its precision is checked once the currency is known. */
export function amountOption(flag: string) {
  return (value: string, previous?: string): string => {
    refuseRepeat(flag, value, previous);
    const checked = checkOrderAmount(value, null);
    if (!checked.ok) throw new UsageError(`${flag}: ${checked.reason}`);
    return value;
  };
}

/** Refuse an amount with more decimals than the merchant's currency (nothing is sent). */
export function checkAmountPrecision(flag: string, amount: string, currency: string): void {
  const checked = checkOrderAmount(amount, currency);
  if (!checked.ok) throw new UsageError(`${flag}: ${checked.reason}`);
  if (checked.tooPrecise)
    throw new UsageError(
      `${flag}: expected at most ${currencyExponent(currency)} decimals for ${currency}, got ${JSON.stringify(amount)}`,
    );
}

/** An upstream id (card, offering, holder): 1-128 characters without spaces. */
export function idOption(flag: string) {
  return (value: string, previous?: string): string => {
    refuseRepeat(flag, value, previous);
    if (!/^\S{1,128}$/.test(value))
      throw new UsageError(
        `${flag}: expected an id of 1-128 characters without spaces, got ${JSON.stringify(value)}`,
      );
    return value;
  };
}

/** A merchantOrderNo: 1-64 printable ASCII characters without spaces. */
export function merchantOrderNoOption(flag: string) {
  return (value: string, previous?: string): string => {
    refuseRepeat(flag, value, previous);
    if (!isMerchantOrderNo(value))
      throw new UsageError(
        `${flag}: expected 1-64 printable ASCII characters without spaces, got ${JSON.stringify(value)}`,
      );
    return value;
  };
}

/** A card status to filter on. */
export function cardStatusOption(flag: string) {
  return (value: string): CardStatus => {
    const status = CARD_STATUSES.find((s) => s === value.toUpperCase());
    if (!status)
      throw new UsageError(
        `${flag}: expected one of ${CARD_STATUSES.join(', ')}, got ${JSON.stringify(value)}`,
      );
    return status;
  };
}
