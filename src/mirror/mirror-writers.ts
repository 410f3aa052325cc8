import { CardWriter } from './card-writer.js';
import { MerchantWriter } from './merchant-writer.js';
import { OfferingWriter } from './offering-writer.js';
import { ProgressStore } from './progress-store.js';
import { QuarantineWriter } from './quarantine-writer.js';
import { RunStore } from './run-store.js';
import type { SqliteDatabase } from './sqlite-database.js';
import { TransactionWriter } from './transaction-writer.js';

/** Every writer of the mirror, prepared once per open file. */
export interface MirrorWriters {
  readonly db: SqliteDatabase;
  readonly transactions: TransactionWriter;
  readonly cards: CardWriter;
  readonly offerings: OfferingWriter;
  readonly merchants: MerchantWriter;
  readonly quarantine: QuarantineWriter;
  readonly progress: ProgressStore;
  readonly runs: RunStore;
  /** Run `work` in one SQLite transaction: all of it lands, or none. */
  atomically<T>(work: () => T): T;
}

/** Prepare the writers of an open mirror. */
export function createMirrorWriters(db: SqliteDatabase): MirrorWriters {
  return {
    db,
    transactions: new TransactionWriter(db),
    cards: new CardWriter(db),
    offerings: new OfferingWriter(db),
    merchants: new MerchantWriter(db),
    quarantine: new QuarantineWriter(db),
    progress: new ProgressStore(db),
    runs: new RunStore(db),
    atomically: (work) => db.transaction(work).immediate(),
  };
}
