import { Database } from '../../src/sqlite-driver.js';

/** A row of the mirror's `quarantine`, as the sync tests read it. */
export interface QuarantineRow {
  merchant_id: string;
  record_id: string | null;
  reason: string;
  raw_json: string;
  seen_count: number;
  resolved_at: string | null;
}

/**
 * The quarantine rows of `resource` in the mirror at `mirrorFile`, oldest first.
 * @example expect(quarantineRows(w.mirrorFile, 'cards')).toHaveLength(1)
 */
export function quarantineRows(mirrorFile: string, resource: string): QuarantineRow[] {
  const db = new Database(mirrorFile, { readonly: true });
  try {
    return db
      .prepare(
        `SELECT merchant_id, record_id, reason, raw_json, seen_count, resolved_at
         FROM quarantine WHERE resource = ? ORDER BY quarantine_id`,
      )
      .all(resource) as QuarantineRow[];
  } finally {
    db.close();
  }
}
