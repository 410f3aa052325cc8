import type { Offering } from '../contract/index.js';
import { minorColumn } from './minor-column.js';
import type { SqliteDatabase } from './sqlite-database.js';
import type { WriteContext, WriteCounts } from './transaction-writer.js';

const TERMS = [
  'merchant_id',
  'name',
  'network',
  'type',
  'currency',
  'min_load_amount',
  'min_load_amount_minor',
  'max_load_amount',
  'max_load_amount_minor',
  'issuance_fee',
  'issuance_fee_minor',
  'deposit_fee_percent',
  'requires_holder',
] as const;

type Terms = Record<(typeof TERMS)[number], string | number | null>;

function termsOf(offering: Offering, merchantId: string): Terms {
  return {
    merchant_id: merchantId,
    name: offering.name,
    network: offering.network,
    type: offering.type,
    currency: offering.currency,
    min_load_amount: offering.minLoadAmount,
    min_load_amount_minor: minorColumn(offering.minLoadAmount, offering.currency),
    max_load_amount: offering.maxLoadAmount,
    max_load_amount_minor: minorColumn(offering.maxLoadAmount, offering.currency),
    issuance_fee: offering.issuanceFee,
    issuance_fee_minor: minorColumn(offering.issuanceFee, offering.currency),
    deposit_fee_percent: offering.depositFeePercent,
    requires_holder: offering.requiresHolder ? 1 : 0,
  };
}

/**
 * Keeps `offerings` at the current terms and `offering_versions` with every version: a new
 * version whenever any term differs from the last one seen, with when the one before it was last
 * seen, so a fee can be checked against the terms in force when it was charged.
 */
export class OfferingWriter {
  readonly #db: SqliteDatabase;

  constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  /** Write the offerings read in one run; call inside the caller's transaction. */
  write(offerings: Iterable<Offering>, context: WriteContext): WriteCounts {
    const counts: WriteCounts = { inserted: 0, updated: 0, unchanged: 0 };
    const current = this.#db.prepare('SELECT * FROM offerings WHERE id = ?');
    const columns = TERMS.join(', ');
    const values = TERMS.map((t) => `@${t}`).join(', ');
    const insertVersion = this.#db.prepare(
      `INSERT INTO offering_versions (id, version, ${columns}, observed_at, run_id, previous_seen_at)
       VALUES (@id, @version, ${values}, @observedAt, @runId, @previousSeenAt)`,
    );
    const insert = this.#db.prepare(
      `INSERT INTO offerings (id, version, ${columns}, first_seen_at, updated_at, last_seen_at)
       VALUES (@id, 1, ${values}, @observedAt, @observedAt, @observedAt)`,
    );
    const update = this.#db.prepare(
      `UPDATE offerings SET version = @version, ${TERMS.map((t) => `${t} = @${t}`).join(', ')},
         updated_at = @observedAt, last_seen_at = @observedAt WHERE id = @id`,
    );
    const touch = this.#db.prepare('UPDATE offerings SET last_seen_at = ? WHERE id = ?');
    for (const offering of offerings) {
      const terms = termsOf(offering, context.merchantId);
      const row = current.get(offering.id) as
        | (Terms & { version: number; last_seen_at: string })
        | undefined;
      const stamp = { id: offering.id, observedAt: context.observedAt, runId: context.runId };
      if (!row) {
        insert.run({ ...terms, ...stamp });
        insertVersion.run({ ...terms, ...stamp, version: 1, previousSeenAt: null });
        counts.inserted += 1;
      } else if (TERMS.some((term) => row[term] !== terms[term])) {
        const version = row.version + 1;
        update.run({ ...terms, ...stamp, version });
        // The old terms held at least until they were last seen; the new ones from some moment
        // after that, at the latest from now.
        insertVersion.run({ ...terms, ...stamp, version, previousSeenAt: row.last_seen_at });
        counts.updated += 1;
      } else {
        touch.run(context.observedAt, offering.id);
        counts.unchanged += 1;
      }
    }
    return counts;
  }
}
