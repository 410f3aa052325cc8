import type { WindowCommit, WindowCounts } from './window-commit.js';

/** What the writer thread is started with. */
export interface WriterThreadData {
  /** The mirror file; the thread opens its own connection to it. */
  readonly file: string;
  readonly busyTimeoutMs?: number;
}

/** A batch of windows to land in one SQLite transaction. */
export interface CommitRequest {
  readonly id: number;
  readonly runId: string;
  readonly windows: readonly WindowCommit[];
}

/** The writer thread's answer to a {@link CommitRequest}. */
export type CommitReply =
  | { readonly id: number; readonly counts: readonly WindowCounts[] }
  | { readonly id: number; readonly error: { readonly message: string; readonly code?: string } };
