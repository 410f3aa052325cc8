import type { Logger } from 'pino';
import { ensureCardIndex } from '../mirror/card-index.js';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';

/** Build the index by card if it is missing (card-index.ts), saying so and how long it took. */
export function ensureCardIndexLogged(db: SqliteDatabase, logger: Logger): void {
  const started = performance.now();
  if (ensureCardIndex(db))
    logger.info(
      { durationMs: Math.round(performance.now() - started) },
      'built the index by card over the rows landed',
    );
}
