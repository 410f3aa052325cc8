import type { Card } from '../contract/index.js';

/**
 * The merchant the first page of cards names: the id earlier runs learnt when a card of the page
 * carries it, else the id most of its cards carry: a card of another merchant slipped into the
 * list (quarantined as such) does not name the merchant for standing first on the page.
 * @example merchantOfPage(page.records, 'mch_1') // 'mch_1' when one of the cards carries it
 */
export function merchantOfPage(
  cards: readonly Card[],
  known: string | undefined,
): string | undefined {
  const counts = new Map<string, number>();
  for (const card of cards) counts.set(card.merchantId, (counts.get(card.merchantId) ?? 0) + 1);
  if (known !== undefined && counts.has(known)) return known;
  let most: string | undefined;
  for (const [id, count] of counts)
    if (most === undefined || count > (counts.get(most) ?? 0)) most = id;
  return most;
}
