import { causeChain, textCode } from '../error-causes.js';

/**
 * Whether `error`, or an error it was caused by, is SQLite's SQLITE_BUSY (or one of its extended
 * codes): another connection held the mirror's write lock longer than the busy timeout, as a
 * `sqlite3` shell left in `BEGIN IMMEDIATE` does. SQLITE_LOCKED is not counted: without a
 * shared cache it only arises within one connection, a bug rather than another writer.
 */
export function isMirrorBusy(error: unknown): boolean {
  for (const e of causeChain(error)) if (textCode(e)?.startsWith('SQLITE_BUSY')) return true;
  return false;
}
