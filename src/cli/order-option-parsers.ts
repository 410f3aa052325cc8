import { CARD_STATUSES, type CardStatus } from '../contract/card-statuses.js';
import { isMerchantOrderNo } from '../journal/merchant-order-no.js';
import { checkOrderAmount } from '../journal/order-amount.js';
import { currencyExponent } from '../money/currency.js';
import { UsageError } from './exit-codes.js';

/** An order amount: a positive decimal such as 25.00; its precision is checked once the currency is known. */
export function amountOption(flag: string) {
  return (value: string): string => {
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
  return (value: string): string => {
    if (!/^\S{1,128}$/.test(value))
      throw new UsageError(
        `${flag}: expected an id of 1-128 characters without spaces, got ${JSON.stringify(value)}`,
      );
    return value;
  };
}

/** A merchantOrderNo: 1-64 printable ASCII characters without spaces. */
export function merchantOrderNoOption(flag: string) {
  return (value: string): string => {
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
