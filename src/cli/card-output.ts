import type { PageResult } from '../api/index.js';
import type { Card, MerchantBalance, Offering, SensitiveCardInfo } from '../contract/index.js';
import { tableText } from './table-text.js';

/** A page of cards as a table with the page line under it. */
export function cardPageText(page: PageResult<Card>): string {
  const { pagination } = page;
  const rows = page.records.map((c) => [
    c.cardId,
    c.status,
    c.balance,
    c.currency,
    c.lastFour,
    c.cardOfferingId,
    c.createdAt,
  ]);
  const table =
    rows.length === 0
      ? 'no cards\n'
      : tableText([
          ['CARD', 'STATUS', 'BALANCE', 'CURRENCY', 'LAST4', 'OFFERING', 'CREATED'],
          ...rows,
        ]);
  const skipped =
    page.rejected.length > 0 ? `; ${page.rejected.length} malformed record(s) left out` : '';
  return `${table}page ${pagination.page} of ${Math.max(1, pagination.totalPages)} (${pagination.total} cards)${skipped}\n`;
}

/** One card's details, a field per line. */
export function cardText(card: Card): string {
  return tableText([
    ['card', card.cardId],
    ['merchant', card.merchantId],
    ['offering', card.cardOfferingId],
    ['status', card.status],
    ['balance', `${card.balance} ${card.currency}`],
    ['last four', card.lastFour],
    ['created', card.createdAt],
  ]);
}

/** The sensitive fields as shown: number and CVV masked unless revealed. */
export interface ShownSensitiveCard {
  readonly cardId: string;
  readonly cardNumber: string;
  readonly cvv: string;
  readonly expiryMonth: string;
  readonly expiryYear: string;
  readonly masked: boolean;
}

/** Mask the card number to its last four digits and the CVV whole, unless `reveal`. */
export function showSensitive(
  cardId: string,
  info: SensitiveCardInfo,
  reveal: boolean,
): ShownSensitiveCard {
  const number = reveal
    ? info.cardNumber
    : `${'*'.repeat(info.cardNumber.length - 4)}${info.cardNumber.slice(-4)}`;
  return {
    cardId,
    cardNumber: number,
    cvv: reveal ? info.cvv : '*'.repeat(info.cvv.length),
    expiryMonth: info.expiryMonth,
    expiryYear: info.expiryYear,
    masked: !reveal,
  };
}

/** The sensitive fields, number grouped by four. */
export function sensitiveText(shown: ShownSensitiveCard): string {
  const grouped = shown.cardNumber.replace(/(.{4})(?=.)/g, '$1 ');
  return (
    tableText([
      ['card', shown.cardId],
      ['number', grouped],
      ['cvv', shown.cvv],
      ['expiry', `${shown.expiryMonth}/${shown.expiryYear}`],
    ]) + (shown.masked ? '(masked; --reveal shows the number and CVV)\n' : '')
  );
}

/** The merchant balance in one line. */
export function balanceText(balance: MerchantBalance): string {
  return `merchant balance: ${balance.balance} ${balance.currency}\n`;
}

/** The offerings as a table. */
export function offeringsText(offerings: readonly Offering[]): string {
  if (offerings.length === 0) return 'no offerings\n';
  return tableText([
    [
      'OFFERING',
      'NAME',
      'NETWORK',
      'TYPE',
      'CURRENCY',
      'MIN LOAD',
      'MAX LOAD',
      'ISSUANCE FEE',
      'DEPOSIT FEE %',
      'HOLDER',
    ],
    ...offerings.map((o) => [
      o.id,
      o.name,
      o.network,
      o.type,
      o.currency,
      o.minLoadAmount,
      o.maxLoadAmount,
      o.issuanceFee,
      o.depositFeePercent,
      o.requiresHolder ? 'required' : '-',
    ]),
  ]);
}
