import type { Logger } from 'pino';
import type { ListResult, PageResult } from '../api/index.js';
import type {
  Card,
  ListCardsQuery,
  ListTransactionsQuery,
  MerchantBalance,
  Offering,
  Transaction,
} from '../contract/index.js';
import type { MirrorWriters } from '../mirror/mirror-writers.js';
import type { ProgressSink } from './progress-sink.js';
import type { WriterThread } from './writer-thread-client.js';

type Call = { signal?: AbortSignal };

/** The reads of the API client the sync uses. */
export interface SyncApi {
  listCards(query: ListCardsQuery, options?: Call): Promise<PageResult<Card>>;
  listTransactions(query: ListTransactionsQuery, options?: Call): Promise<PageResult<Transaction>>;
  getCard(cardId: string, options?: Call): Promise<Card>;
  getMerchantBalance(options?: Call): Promise<MerchantBalance>;
  listOfferings(options?: Call): Promise<ListResult<Offering>>;
  upstreamNow(): number | undefined;
}

/**
 * The moment of a read, in epoch ms on the upstream's clock: a card's balance read then is
 * compared with the transactions whose `createdAt` (the upstream's clock) came before it, and a
 * transaction's first-seen time with the cards' reads. The local clock until an answer came.
 */
export function readTime(context: Pick<MerchantSyncContext, 'api' | 'clock'>): number {
  return context.api.upstreamNow() ?? context.clock();
}

/** Tunables of a sync, from the configuration. */
export interface SyncSettings {
  readonly concurrency: number;
  readonly maxPagesPerWindow: number;
  readonly lookbackMs: number;
  readonly safetyLagMs: number;
  /** Where the first run starts (epoch ms), instead of the earliest card. */
  readonly since?: number | undefined;
}

/** Everything one merchant's sync works with. */
export interface MerchantSyncContext {
  readonly api: SyncApi;
  readonly writers: MirrorWriters;
  /** The writer thread that lands transaction windows (on a connection of its own). */
  readonly writerThread: WriterThread;
  readonly runId: string;
  readonly source: string;
  readonly baseUrl: string;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  readonly settings: SyncSettings;
  readonly clock: () => number;
  readonly progress: ProgressSink;
}
