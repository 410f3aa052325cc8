import type { Logger } from 'pino';
import { keepLockFresh, releaseLock } from '../mirror/lock-heartbeat.js';
import { acquireMirrorLock, type MirrorLock } from '../mirror/mirror-lock.js';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';

/** The mirror lock as {@link withMirrorLock} hands it to its work. */
export interface HeldLock {
  readonly lock: MirrorLock;
  /** Aborted when another run took the lock over (it judged this one dead): stop writing. */
  readonly lost: AbortSignal;
}

/**
 * Take the mirror's single-writer lock under `runId`, keep its heartbeat while `work` runs, and
 * release it after, whatever happens.
 * @throws MirrorError MIRROR_LOCKED when another live run holds it.
 */
export async function withMirrorLock<T>(
  options: { db: SqliteDatabase; runId: string; logger: Logger; clock?: () => number },
  work: (held: HeldLock) => Promise<T> | T,
): Promise<T> {
  const lock = acquireMirrorLock(options.db, {
    runId: options.runId,
    ...(options.clock ? { now: options.clock } : {}),
  });
  if (lock.replaced)
    options.logger.warn({ previous: lock.replaced }, 'took over the lock of a run that had died');
  const lost = new AbortController();
  const stopHeartbeat = keepLockFresh(lock, {
    logger: options.logger,
    onLost: () => lost.abort(new Error('lock lost')),
  });
  try {
    return await work({ lock, lost: lost.signal });
  } finally {
    stopHeartbeat();
    releaseLock(lock, options.logger);
  }
}
