import type { Logger } from 'pino';
import type { MirrorLock } from './mirror-lock.js';

/** How often a held lock's heartbeat is refreshed (a holder is presumed dead after 2 minutes). */
export const HEARTBEAT_MS = 15_000;

/**
 * Release `lock`, logging a release the mirror refuses (a full disk) instead of throwing it over
 * the run's own outcome or error: the holder is this process, so once it has ended the next run
 * on this host replaces it (and one on another host after the heartbeat is stale).
 */
export function releaseLock(lock: MirrorLock, logger: Logger): void {
  try {
    lock.release();
  } catch (error) {
    logger.warn({ err: error }, 'could not release the mirror lock; the next run replaces it');
  }
}

/**
 * Refresh `lock`'s heartbeat every {@link HEARTBEAT_MS} until the returned function is called;
 * `onLost` once another run has taken the lock over (logged as an error: this run must stop
 * writing at once). A heartbeat the mirror refuses (another writer past the busy timeout, a full
 * disk) is logged and tried again at the next beat: the lock goes stale only after several
 * missed beats, and an error thrown from a timer would end the process with a stack trace, past
 * every handler of the run.
 */
export function keepLockFresh(
  lock: MirrorLock,
  options: { logger: Logger; onLost: () => void },
): () => void {
  const timer = setInterval(() => {
    let held: boolean;
    try {
      held = lock.heartbeat();
    } catch (error) {
      options.logger.warn(
        { err: error },
        'could not refresh the mirror lock; trying again at the next heartbeat',
      );
      return;
    }
    if (held) return;
    clearInterval(timer);
    options.logger.error('another run took over the lock on this mirror; stopping');
    options.onLost();
  }, HEARTBEAT_MS);
  timer.unref();
  return () => clearInterval(timer);
}
