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
 * How far back the estimate of the upstream's clock may move as its bounds narrow: half their
 * width, a second and a round trip after the first answer. A larger step is a clock that was set.
 */
const SETTLE_MS = 5_000;

/** The latest read time given per client: a run's reads never go back by a settling estimate. */
const LATEST_READ = new WeakMap<SyncApi, number>();

/**
 * The moment of a read, in epoch ms on the upstream's clock: a card's balance read then is
 * compared with the transactions whose `createdAt` (the upstream's clock) came before it, and a
 * transaction's first-seen time with the cards' reads. The local clock until an answer came.
 * Never before an earlier read of the same client by less than {@link SETTLE_MS}: on a host whose
 * clock disagrees with the upstream's, the estimate (the middle of the `Date` headers' bounds)
 * moves back by up to half a second when an answer narrows them, and a tail window ending then
 * ended before the last cards' reads, which the reconciliation then left unchecked.
 */
export function readTime(context: Pick<MerchantSyncContext, 'api' | 'clock'>): number {
  const at = context.api.upstreamNow() ?? context.clock();
  const latest = LATEST_READ.get(context.api);
  if (latest !== undefined && at < latest && latest - at <= SETTLE_MS) return latest;
  LATEST_READ.set(context.api, at);
  return at;
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
