import { createHash } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import { redactCardNumbers, withoutCardSecrets } from '../contract/card-secrets.js';
import { parseExactly, stringifyExactly } from '../contract/exact-json.js';
import type { SqliteDatabase } from './sqlite-database.js';
import type { WriteContext } from './transaction-writer.js';

const UPSERT = `
INSERT INTO quarantine (merchant_id, resource, record_id, reason, raw_json, raw_sha256,
     first_seen_at, last_seen_at, last_run_id)
   VALUES (@merchantId, @resource, @recordId, @reason, @raw, @sha, @at, @at, @runId)
   ON CONFLICT (merchant_id, resource, raw_sha256) DO UPDATE SET
     last_seen_at = excluded.last_seen_at, last_run_id = excluded.last_run_id,
     seen_count = quarantine.seen_count + 1, reason = excluded.reason, resolved_at = NULL
   RETURNING seen_count`;

/**
 * The key of a quarantined record's raw JSON (`raw_sha256`): one row per distinct raw record.
 * Migration 021 keys the rows it redacts by it too (src/mirror/migration-functions.ts).
 */
export function rawSha256(raw: string): string {
  return createHash('sha256').update(raw).digest('hex');
}

/** A record the upstream sent that failed validation. */
export interface QuarantinedRecord {
  readonly resource: 'cards' | 'transactions' | 'offerings' | 'merchant_balance';
  readonly recordId?: string | undefined;
  readonly reason: string;
  /** The record as parsed by `JSON.parse`: kept when `sentJson` is not given. */
  readonly raw: unknown;
  /**
   * The record's JSON text with its numbers as the upstream wrote them (`12.50`, not 12.5; see
   * src/contract/exact-json.ts), card secrets not yet taken out: kept in place of `raw`.
   */
  readonly sentJson?: string | undefined;
}

/** A quarantined record's JSON for `raw_json`, without card numbers and CVVs. */
function rawJsonOf(record: QuarantinedRecord): string {
  const sent = record.sentJson === undefined ? undefined : parseExactly(record.sentJson);
  if (sent !== undefined) return stringifyExactly(withoutCardSecrets(sent)) ?? 'null';
  return JSON.stringify(withoutCardSecrets(record.raw)) ?? 'null';
}

/**
 * Keeps malformed upstream records with their raw JSON (numbers as the upstream wrote them) and
 * the reason, once per distinct raw record (seen again: `seen_count` and `last_seen_at` move), so
 * nothing the upstream sent is lost and the run goes on.
 */
export class QuarantineWriter {
  readonly #db: SqliteDatabase;
  readonly #upsert: Statement;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#upsert = db.prepare(UPSERT);
  }

  /** Quarantine `records`; call inside the caller's transaction. Returns how many were new. */
  write(records: Iterable<QuarantinedRecord>, context: WriteContext): number {
    let fresh = 0;
    for (const record of records) {
      // A malformed record may carry anything: no card number or CVV is kept, nor hashed.
      const raw = rawJsonOf(record);
      const row = this.#upsert.get({
        merchantId: context.merchantId,
        resource: record.resource,
        recordId: record.recordId ?? null,
        reason: redactCardNumbers(record.reason),
        raw,
        sha: rawSha256(raw),
        at: context.observedAt,
        runId: context.runId,
      }) as { seen_count: number };
      if (row.seen_count === 1) fresh += 1;
    }
    return fresh;
  }

  /**
   * Mark resolved the quarantined cards and transactions of a merchant that the mirror now
   * holds in a valid form and that this run did not see malformed again. A transaction counts
   * as seen again only where a window of this run read its `createdAt`: the mirror may hold a
   * valid version read before the malformed one, and a range no window reads tells nothing.
   */
  resolveRepaired(context: WriteContext): number {
    return this.#db
      .prepare(
        `UPDATE quarantine SET resolved_at = @at
         WHERE merchant_id = @merchantId AND resolved_at IS NULL AND last_run_id <> @runId
           AND ((resource = 'transactions'
                 AND EXISTS (SELECT 1 FROM transactions t JOIN sync_windows w
                               ON w.run_id = @runId AND w.merchant_id = t.merchant_id
                              AND w.filter IS NULL
                              AND t.created_at BETWEEN w.start_at AND w.end_at
                             WHERE t.transaction_id = quarantine.record_id
                               AND t.merchant_id = @merchantId))
             OR (resource = 'cards'
                 AND EXISTS (SELECT 1 FROM cards c WHERE c.card_id = quarantine.record_id
                               AND c.merchant_id = @merchantId)))`,
      )
      .run({ at: context.observedAt, merchantId: context.merchantId, runId: context.runId })
      .changes;
  }
}
