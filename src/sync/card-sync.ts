import pLimit from 'p-limit';
import type { PageResult } from '../api/index.js';
import type { Card } from '../contract/index.js';
import type { QuarantinedRecord } from '../mirror/quarantine-writer.js';
import { addLandedTo, CommitBatcher } from './commit-batcher.js';
import { effectivePageSize } from './effective-page-size.js';
import { quarantineEntries } from './quarantine-entries.js';
import { screenCards } from './record-screen.js';
import { type MerchantSyncContext, readTime } from './sync-context.js';
import { emptyCounts, type ResourceCounts } from './sync-result.js';
import { isoTime } from './time-range.js';
import type { CardPageCommit, CardPageCounts } from './writer-thread-protocol.js';

/** The size of the card list's pages; the first names the merchant (merchant-of-page.ts). */
export const CARD_PAGE_SIZE = 100;
const SNAPSHOT_ATTEMPTS = 4;
/** Cards of read pages that may wait behind a landing batch on the writer thread. */
const BATCH_CARDS = 5_000;

/** The first page of the card list, read before anything else to learn the merchant's id. */
export async function readFirstCardPage(context: MerchantSyncContext): Promise<PageResult<Card>> {
  return context.api.listCards({ page: 1, limit: CARD_PAGE_SIZE }, { signal: context.signal });
}

/**
 * Snapshot every card (the list has no time filter): the pages after the first in parallel,
 * each landing as it arrives, stamped with when it was read, and the distinct ids checked
 * against the reported total. If cards moved between pages, the list is read again (up to
 * four times in all).
 */
export async function syncCards(
  context: MerchantSyncContext,
  merchantId: string,
  firstPage: PageResult<Card>,
  options: {
    /** Told of a failure at once, before the pages read so far have landed. */
    onFailure?: (error: unknown) => void;
  } = {},
): Promise<ResourceCounts> {
  const counts: ResourceCounts = { ...emptyCounts(), outcome: 'done' };
  const batcher = new CommitBatcher<CardPageCommit, CardPageCounts>({
    send: (pages) => context.writerThread.commitCards(context.runId, pages),
    landed: addLandedTo(counts),
    batchRows: BATCH_CARDS,
  });
  try {
    return await snapshotCards(context, merchantId, firstPage, batcher, counts);
  } catch (error) {
    options.onFailure?.(error);
    throw error;
  } finally {
    // Pages read land even when the snapshot stopped on an error or a signal.
    await batcher.flush();
  }
}

async function snapshotCards(
  context: MerchantSyncContext,
  merchantId: string,
  firstPage: PageResult<Card>,
  batcher: CommitBatcher<CardPageCommit, CardPageCounts>,
  counts: ResourceCounts,
): Promise<ResourceCounts> {
  let first: PageResult<Card> | null = firstPage;
  for (let attempt = 1; attempt <= SNAPSHOT_ATTEMPTS; attempt++) {
    const page1 = first ?? (await readFirstCardPage(context));
    first = null;
    const { total } = page1.pagination;
    const limit = effectivePageSize(page1);
    const seen = new Set<string>();
    let stable = true;
    const land = (page: PageResult<Card>) => {
      // The first page's limit is what the upstream made of the one asked for; the others are
      // asked for with `limit` and must keep it.
      if (page.pagination.total !== total || (page !== page1 && page.pagination.limit !== limit))
        stable = false;
      for (const card of page.records) seen.add(card.cardId);
      page.rejected.forEach((e, i) => {
        seen.add(e.recordId ?? `page${page.pagination.page}#${i}`);
      });
      counts.fetched += page.records.length + page.rejected.length;
      context.progress.advance(page.records.length);
      return batcher.add(cardPageCommit(context, merchantId, page), page.records.length);
    };
    await land(page1);
    const pages = Math.ceil(total / limit);
    // A page is asked for only when a slot is free, and holds its slot until it is handed to
    // the batcher: when the writer falls behind, the reading waits, instead of every page of a
    // large list being requested at once and piling up parsed (at 300,000 cards the main heap
    // held about 60 MiB of them).
    const slot = pLimit(context.settings.concurrency);
    await Promise.all(
      Array.from({ length: Math.max(0, pages - 1) }, (_, i) =>
        slot(async () =>
          land(await context.api.listCards({ page: i + 2, limit }, { signal: context.signal })),
        ),
      ),
    );
    if (stable && seen.size === total) return counts;
    context.logger.warn(
      { merchantId, attempt, total, distinct: seen.size },
      'the card list changed while it was read',
    );
  }
  // Every card seen has landed; one the list hid under persistent drift comes next run, or
  // through /cards/info if a transaction names it.
  return counts;
}

/** A page as the writer thread lands it: this merchant's valid cards, the rest quarantined. */
function cardPageCommit(
  context: MerchantSyncContext,
  merchantId: string,
  page: PageResult<Card>,
): CardPageCommit {
  const foreign = page.records.filter((card) => card.merchantId !== merchantId);
  const { kept: mine, refused } = screenCards(
    page.records.filter((card) => card.merchantId === merchantId),
  );
  const quarantined: QuarantinedRecord[] = [
    ...quarantineEntries('cards', page.rejected),
    ...refused,
    ...foreign.map((card) => foreignCard(card, merchantId)),
  ];
  return { merchantId, cards: mine, quarantined, observedAt: isoTime(readTime(context)) };
}

/** The quarantine row of a card read for `merchantId` that names another merchant. */
export function foreignCard(card: Card, merchantId: string): QuarantinedRecord {
  return {
    resource: 'cards',
    recordId: card.cardId,
    reason: `card of merchant ${card.merchantId}, not ${merchantId}`,
    raw: card,
  };
}
