import type { Card } from '../contract/index.js';
import type { QuarantinedRecord } from '../mirror/quarantine-writer.js';
import type { WriteCounts } from '../mirror/transaction-writer.js';
import type { WindowCommit, WindowCounts } from './window-commit.js';

/** What the writer thread is started with. */
export interface WriterThreadData {
  /** The mirror file; the thread opens its own connection to it. */
  readonly file: string;
  readonly busyTimeoutMs?: number;
}

/** A page of the card list, read and ready to land. Plain data, like {@link WindowCommit}. */
export interface CardPageCommit {
  readonly merchantId: string;
  readonly cards: readonly Card[];
  readonly quarantined: readonly QuarantinedRecord[];
  /** When the page was read (ISO): the moment its balances are compared against. */
  readonly observedAt: string;
}

/** What landing a card page did. */
export type CardPageCounts = WriteCounts & { quarantined: number };

/**
 * A batch to land in one SQLite transaction, or a checkpoint (the WAL copied back into the
 * mirror file) or an index build: work the main thread would otherwise wait for, done here while
 * it counts and checks.
 */
export type CommitRequest =
  | {
      readonly id: number;
      readonly kind: 'windows';
      readonly runId: string;
      readonly items: readonly WindowCommit[];
    }
  | {
      readonly id: number;
      readonly kind: 'cards';
      readonly runId: string;
      readonly items: readonly CardPageCommit[];
    }
  | { readonly id: number; readonly kind: 'checkpoint' }
  /** Build the index by card if it is missing (a first sync dropped it to land faster). */
  | { readonly id: number; readonly kind: 'cardIndex' };

/** The writer thread's answer to a {@link CommitRequest}: counts item by item, or the error. */
export type CommitReply =
  | {
      readonly id: number;
      readonly counts: readonly (WindowCounts | CardPageCounts)[];
      /** Set when a `cardIndex` request built the index: how long that took, in ms. */
      readonly indexBuiltMs?: number;
    }
  | { readonly id: number; readonly error: { readonly message: string; readonly code?: string } };
