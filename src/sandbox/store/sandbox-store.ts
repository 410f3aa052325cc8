import { CardStore } from './card-store.js';
import type { SandboxDatabase } from './database.js';
import { MerchantStore } from './merchant-store.js';
import { OfferingStore } from './offering-store.js';
import { OrderStore } from './order-store.js';
import { TransactionStore } from './transaction-store.js';

/** All of the sandbox's tables behind one handle, and one way to run a unit of work atomically. */
export class SandboxStore {
  readonly db: SandboxDatabase;
  readonly merchants: MerchantStore;
  readonly offerings: OfferingStore;
  readonly cards: CardStore;
  readonly transactions: TransactionStore;
  readonly orders: OrderStore;

  constructor(db: SandboxDatabase) {
    this.db = db;
    this.merchants = new MerchantStore(db);
    this.offerings = new OfferingStore(db);
    this.cards = new CardStore(db);
    this.transactions = new TransactionStore(db);
    this.orders = new OrderStore(db);
  }

  /**
   * Build the in-memory page indexes of cards and transactions, which are otherwise built by
   * the first page asked for (a second or more for a world of a million transactions).
   */
  buildIndexes(): void {
    this.cards.buildIndex();
    this.transactions.buildIndex();
  }

  /** Run `work` in one SQLite transaction (nested calls join the outer one). */
  atomically<T>(work: () => T): T {
    const transactionWrites = this.transactions.indexWrites;
    const cardWrites = this.cards.indexWrites;
    try {
      return this.db.transaction(work)();
    } catch (error) {
      // A rolled-back write that reached an in-memory index first leaves it ahead of SQLite.
      if (this.transactions.indexWrites !== transactionWrites) this.transactions.invalidateIndex();
      if (this.cards.indexWrites !== cardWrites) this.cards.invalidateIndex();
      throw error;
    }
  }
}
