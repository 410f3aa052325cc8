import type { Logger } from 'pino';
import { ensureCardIndex } from '../mirror/card-index.js';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';

/** Build the index by card if it is missing (card-index.ts), saying so and how long it took. */
export function ensureCardIndexLogged(db: SqliteDatabase, logger: Logger): void {
  const started = performance.now();
  if (ensureCardIndex(db)) logCardIndexBuilt(logger, Math.round(performance.now() - started));
}

/** Say that the index by card was built, wherever it was (here, or on the writer thread). */
export function logCardIndexBuilt(logger: Logger, durationMs: number): void {
  logger.info({ durationMs }, 'built the index by card over the rows landed');
}
