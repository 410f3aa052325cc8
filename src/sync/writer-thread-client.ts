import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { WindowCommit, WindowCounts } from './window-commit.js';
import type {
  CardPageCommit,
  CardPageCounts,
  CommitReply,
  CommitRequest,
  WriterThreadData,
} from './writer-thread-protocol.js';

/** A failed commit on the writer thread, with SQLite's code when there was one. */
export class WriterThreadError extends Error {
  readonly code: string;

  constructor(message: string, code = 'MIRROR_WRITE_FAILED') {
    super(message);
    this.name = 'WriterThreadError';
    this.code = code;
  }
}

/** The thread's answer when the request succeeded. */
type Answer = Extract<CommitReply, { counts: unknown }>;

interface Pending {
  resolve(reply: Answer): void;
  reject(error: Error): void;
}

/**
 * The mirror's writer thread, seen from the sync: batches of transaction windows or card pages
 * go in, each batch lands in one SQLite transaction on the thread's own connection, and the
 * promise answers with what each item wrote. Parsing and network stay on the main thread, statements and commits (with their
 * fsyncs at checkpoints) run on the other core, so a large first sync costs about the larger of
 * the two instead of their sum. Batches land in the order they were sent.
 */
export class WriterThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #failure: Error | null = null;
  #closed: Promise<void> | null = null;
  /** Settles when the thread has ended, whether asked to or not (a crash, its memory limit). */
  readonly #exit: Promise<void>;
  #exited = false;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (reply: CommitReply) => this.#settle(reply));
    worker.on('error', (error) => this.#fail(error));
    this.#exit = new Promise((resolve) => {
      worker.once('exit', (code) => {
        this.#exited = true;
        if (this.#closed === null)
          this.#fail(new WriterThreadError(`the mirror's writer thread exited (code ${code})`));
        resolve();
      });
    });
  }

  /** Start a writer thread on the mirror file `file` (already open and migrated). */
  static start(file: string, options: { busyTimeoutMs?: number } = {}): WriterThread {
    const data: WriterThreadData = { file, ...options };
    // A small heap: the thread's garbage is the batches it has landed, and V8's default limits
    // let the process's memory grow by tens of MiB for nothing. What it holds at once is a
    // batch or two (about 10,000 rows, 8 MiB); measured at 1M rows, its heap stayed under
    // 40 MiB with these limits and reached 97 MiB without the old-generation one.
    return new WriterThread(
      new Worker(writerThreadFile(), {
        workerData: data,
        resourceLimits: { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 64 },
      }),
    );
  }

  /** Land `windows` in one transaction; rejects with {@link WriterThreadError} if it failed. */
  async commit(runId: string, windows: readonly WindowCommit[]): Promise<readonly WindowCounts[]> {
    const reply = await this.#send((id) => ({ id, kind: 'windows', runId, items: windows }));
    return reply.counts as readonly WindowCounts[];
  }

  /** Land pages of the card list in one transaction. */
  async commitCards(
    runId: string,
    pages: readonly CardPageCommit[],
  ): Promise<readonly CardPageCounts[]> {
    const reply = await this.#send((id) => ({ id, kind: 'cards', runId, items: pages }));
    return reply.counts as readonly CardPageCounts[];
  }

  /**
   * Build the index by card if it is missing (card-index.ts), once what was sent before has
   * landed: a first sync's rows landed without it, and this thread builds it while the main
   * thread runs the closing audit, instead of after it.
   * @returns how long the build took in ms, or undefined when the index was there.
   */
  async buildCardIndex(): Promise<number | undefined> {
    const reply = await this.#send((id) => ({ id, kind: 'cardIndex' }));
    return reply.indexBuiltMs;
  }

  /**
   * Copy the WAL back into the mirror file (a passive checkpoint) once what was sent before has
   * landed. The last connection to close checkpoints whatever is left, on the main thread and
   * after the run; asked for while the main thread counts and checks, that waiting is done on
   * this thread instead (0.3 s after a nightly run at 1M rows).
   */
  async checkpoint(): Promise<void> {
    await this.#send((id) => ({ id, kind: 'checkpoint' }));
  }

  #send(request: (id: number) => CommitRequest): Promise<Answer> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#closed) return Promise.reject(new WriterThreadError('the writer thread is closed'));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage(request(id));
    });
  }

  /** Let the thread finish what it was sent, close its connection and end. */
  close(): Promise<void> {
    if (!this.#closed) {
      // A thread that already ended (it failed) has nothing to finish.
      if (!this.#exited) this.#worker.postMessage('close');
      this.#closed = this.#exit;
    }
    return this.#closed;
  }

  #settle(reply: CommitReply): void {
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    if ('counts' in reply) pending.resolve(reply);
    else pending.reject(new WriterThreadError(reply.error.message, reply.error.code));
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}

/**
 * The thread's script. Built, it sits beside this file. Under vitest the sources run as
 * TypeScript, which a worker thread cannot load, so the build is used (`npm test` builds first).
 */
function writerThreadFile(): URL {
  const here = new URL(import.meta.url);
  const file = here.pathname.endsWith('.ts')
    ? new URL('../../dist/sync/writer-thread.js', here)
    : new URL('./writer-thread.js', here);
  if (!existsSync(fileURLToPath(file)))
    throw new WriterThreadError(
      `the writer thread's script ${fileURLToPath(file)} is missing: run npm run build`,
    );
  return file;
}
