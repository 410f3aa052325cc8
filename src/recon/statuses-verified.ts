import type { SqliteDatabase } from '../mirror/sqlite-database.js';

/**
 * Whether the statuses the mirror holds for `merchantId`'s transactions were checked against
 * the upstream by the latest sync that read the merchant: false when that sync's closing count
 * audit, which catches every status change of an older row, did not finish (an upstream that
 * failed at the end of the run, a stop), while the windows it did finish moved the cutoff on. A
 * merchant no sync has recorded counts as verified: the cutoff then says what is known. The
 * latest is the run recorded last, not the greatest `started_at` (the host's clock, which may
 * have been set back since an earlier run).
 * @example statusesVerified(db, 'mch_1') // false after a sync that exited 4 in its audit
 */
export function statusesVerified(db: SqliteDatabase, merchantId: string): boolean {
  const latest = db
    .prepare(
      `SELECT json_extract(m.value, '$.audit.outcome') AS audit
       FROM sync_runs r, json_each(r.summary) m
       WHERE json_valid(r.summary) AND json_type(r.summary) = 'array'
         AND json_extract(m.value, '$.merchantId') = ?
       ORDER BY r.rowid DESC LIMIT 1`,
    )
    .get(merchantId) as { audit: string | null } | undefined;
  return latest === undefined || latest.audit === 'done';
}

/**
 * {@link statusesVerified}, asked at the first call and remembered: for a check that needs it
 * only for a record whose difference nothing else explains, which most runs never meet.
 * @example const verified = statusesVerifiedOnce(db, 'mch_1'); if (!verified()) ...
 */
export function statusesVerifiedOnce(db: SqliteDatabase, merchantId: string): () => boolean {
  let verified: boolean | undefined;
  return () => {
    verified ??= statusesVerified(db, merchantId);
    return verified;
  };
}
