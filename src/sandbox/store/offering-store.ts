import type { SandboxDatabase } from './database.js';
import type { OfferingRecord } from './records.js';
import { StatementCache } from './statement-cache.js';

const OFFERING_COLUMNS = `id, merchant_id AS merchantId, position, name, network, type, currency,
  min_load_minor AS minLoadMinor, max_load_minor AS maxLoadMinor, issuance_fee_minor AS issuanceFeeMinor,
  deposit_fee_percent AS depositFeePercent, requires_holder AS requiresHolder`;

type OfferingRow = Omit<OfferingRecord, 'requiresHolder'> & { requiresHolder: 0 | 1 };

function fromRow(row: OfferingRow): OfferingRecord {
  return { ...row, requiresHolder: row.requiresHolder === 1 };
}

/** The card offerings of each merchant. */
export class OfferingStore {
  readonly #sql: StatementCache;

  constructor(db: SandboxDatabase) {
    this.#sql = new StatementCache(db);
  }

  /** An offering of `merchantId`, or undefined (another merchant's offering is unknown). */
  get(merchantId: string, id: string): OfferingRecord | undefined {
    const row = this.#sql
      .get(`SELECT ${OFFERING_COLUMNS} FROM offerings WHERE id = ? AND merchant_id = ?`)
      .get(id, merchantId) as OfferingRow | undefined;
    return row && fromRow(row);
  }

  /** The offerings of a merchant in catalogue order. */
  list(merchantId: string): OfferingRecord[] {
    const rows = this.#sql
      .get(`SELECT ${OFFERING_COLUMNS} FROM offerings WHERE merchant_id = ? ORDER BY position`)
      .all(merchantId) as OfferingRow[];
    return rows.map(fromRow);
  }

  /** Add an offering. */
  insert(offering: OfferingRecord): void {
    this.#sql
      .get(
        `INSERT INTO offerings (id, merchant_id, position, name, network, type, currency, min_load_minor,
          max_load_minor, issuance_fee_minor, deposit_fee_percent, requires_holder)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        offering.id,
        offering.merchantId,
        offering.position,
        offering.name,
        offering.network,
        offering.type,
        offering.currency,
        offering.minLoadMinor,
        offering.maxLoadMinor,
        offering.issuanceFeeMinor,
        offering.depositFeePercent,
        offering.requiresHolder ? 1 : 0,
      );
  }
}
