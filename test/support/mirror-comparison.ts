import type { RunningSandbox } from '../../src/sandbox/sandbox.js';
import { Database } from '../../src/sqlite-driver.js';

/** What differs between the service's data and a mirror; all empty when they are equal. */
export interface MirrorDifferences {
  readonly missingCards: string[];
  readonly extraCards: string[];
  readonly cardMismatches: string[];
  readonly missingTransactions: string[];
  readonly extraTransactions: string[];
  readonly transactionMismatches: string[];
}

interface CardRow {
  card_id: string;
  merchant_id: string;
  status: string;
  balance_minor: number | null;
}

interface TransactionRow {
  transaction_id: string;
  merchant_id: string;
  card_id: string;
  type: string;
  status: string;
  amount_minor: number | null;
  fee_minor: number | null;
  created_at: string;
}

/**
 * Compare a mirror file with the sandbox's own store, id by id: every card with its status and
 * balance, every posted transaction with its card, type, status, amounts and createdAt. The
 * store is read directly (it is the truth the HTTP surface presents).
 */
export function compareMirror(sandbox: RunningSandbox, mirrorFile: string): MirrorDifferences {
  const store = sandbox.context.store.db;
  const truthCards = new Map(
    (
      store
        .prepare('SELECT card_id, merchant_id, status, balance_minor FROM cards')
        .all() as CardRow[]
    ).map((c) => [c.card_id, c]),
  );
  const truthTxns = new Map(
    (
      store
        .prepare(
          `SELECT transaction_id, merchant_id, card_id, type, status,
             CASE WHEN amount_text IS NULL THEN amount_minor END AS amount_minor, fee_minor,
             created_at FROM transactions WHERE posted = 1`,
        )
        .all() as (Omit<TransactionRow, 'created_at'> & { created_at: number })[]
    ).map((t) => [t.transaction_id, { ...t, created_at: new Date(t.created_at).toISOString() }]),
  );
  const mirror = new Database(mirrorFile, { readonly: true });
  try {
    const cards = mirror
      .prepare('SELECT card_id, merchant_id, status, balance_minor FROM cards')
      .all() as CardRow[];
    const txns = mirror
      .prepare(
        `SELECT transaction_id, merchant_id, card_id, type, status, amount_minor, fee_minor,
           created_at FROM transactions`,
      )
      .all() as TransactionRow[];
    const cardIds = new Set(cards.map((c) => c.card_id));
    const txnIds = new Set(txns.map((t) => t.transaction_id));
    return {
      missingCards: [...truthCards.keys()].filter((id) => !cardIds.has(id)),
      extraCards: cards.filter((c) => !truthCards.has(c.card_id)).map((c) => c.card_id),
      cardMismatches: cards
        .filter((c) => {
          const truth = truthCards.get(c.card_id);
          return truth && JSON.stringify(truth) !== JSON.stringify(c);
        })
        .map(
          (c) =>
            `${c.card_id}: ${JSON.stringify(truthCards.get(c.card_id))} vs ${JSON.stringify(c)}`,
        ),
      missingTransactions: [...truthTxns.keys()].filter((id) => !txnIds.has(id)),
      extraTransactions: txns
        .filter((t) => !truthTxns.has(t.transaction_id))
        .map((t) => t.transaction_id),
      transactionMismatches: txns
        .filter((t) => {
          const truth = truthTxns.get(t.transaction_id);
          if (!truth) return false;
          const comparable = {
            ...t,
            amount_minor: truth.amount_minor === null ? null : t.amount_minor,
          };
          return JSON.stringify(truth) !== JSON.stringify(comparable);
        })
        .map(
          (t) =>
            `${t.transaction_id}: ${JSON.stringify(truthTxns.get(t.transaction_id))} vs ${JSON.stringify(t)}`,
        ),
    };
  } finally {
    mirror.close();
  }
}

/** A difference report with every list empty. */
export const NO_DIFFERENCES: MirrorDifferences = {
  missingCards: [],
  extraCards: [],
  cardMismatches: [],
  missingTransactions: [],
  extraTransactions: [],
  transactionMismatches: [],
};
