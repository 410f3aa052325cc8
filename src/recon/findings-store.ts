import type { FindingEventsTable, FindingsTable } from '../mirror/mirror-schema.js';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import { isCheckCode } from './check-code.js';
import { ID_SEPARATOR, type Undecided, undecidedKey } from './check-coverage.js';
import type { Finding } from './finding.js';
import { type FindingIds, fingerprintOf, type IdKey, identityKeysOf } from './finding-identity.js';
import { findingMinor } from './finding-minor.js';
import { FindingsError } from './findings-error.js';
import type { CheckResults } from './run-checks.js';
import { type StoredFinding, storedFinding } from './stored-finding.js';

/** What one reconciliation left in the findings store. */
export interface Reconciliation {
  readonly runId: string;
  readonly at: string;
  /** The main report: findings that hold (`new` or `persisting`) and are not acknowledged. */
  readonly current: readonly StoredFinding[];
  /** Findings that hold but are acknowledged, with amounts unchanged and the expiry ahead. */
  readonly acknowledged: readonly StoredFinding[];
  /** Findings of earlier runs that this run found no longer holding. */
  readonly resolved: readonly StoredFinding[];
}

type EventName = FindingEventsTable['event'];

/**
 * Record the results of one reconciliation, atomically: each finding is `new` the first time
 * it is seen (or seen again after it was resolved), `persisting` after that; an open finding of
 * a check and merchant that ran and no longer reports it becomes `resolved`, unless the check
 * skipped its record this run (`results.undecided`): then it stays open, `persisting`, and is
 * reported with the values last seen. A finding whose check or merchant did not run (disabled,
 * or not in scope) is left as it was. An
 * acknowledgement lapses, and the finding is back in the main report, once its expiry has
 * passed or its expected or actual value differs from the acknowledged one.
 * @example
 * const run = recordReconciliation(mirror.db, { runId, at: new Date().toISOString(), results });
 * // run.current -> discrepancies.csv, run.resolved -> resolved.csv
 * @throws FindingsError RUN_ALREADY_RECORDED when `runId` was recorded before.
 */
export function recordReconciliation(
  db: SqliteDatabase,
  run: { readonly runId: string; readonly at: string; readonly results: CheckResults },
): Reconciliation {
  const { runId, at, results } = run;
  const get = db.prepare('SELECT * FROM findings WHERE fingerprint = ?');
  const event = db.prepare(
    'INSERT INTO finding_events (fingerprint, run_id, at, event, detail) VALUES (?, ?, ?, ?, ?)',
  );
  const note = (fingerprint: string, name: EventName, detail: string | null = null) =>
    event.run(fingerprint, runId, at, name, detail);
  const insert = db.prepare(
    `INSERT INTO findings (fingerprint, check_code, severity, merchant_id, card_id, transaction_id,
       order_no, merchant_order_no, trade_no, snapshot_at, offering_id, currency, expected, actual,
       delta, expected_minor, actual_minor, delta_minor, detail, state, first_seen_at,
       first_seen_run_id, last_seen_at, last_seen_run_id)
     VALUES (@fingerprint, @check, @severity, @merchantId, @cardId, @transactionId, @orderNo,
       @merchantOrderNo, @tradeNo, @snapshotAt, @offeringId, @currency, @expected, @actual, @delta,
       @expectedMinor, @actualMinor, @deltaMinor, @detail, 'new', @at, @runId, @at, @runId)`,
  );
  const reopen = db.prepare(
    `UPDATE findings SET state = 'new', first_seen_at = @at, first_seen_run_id = @runId,
       resolved_at = NULL, resolved_run_id = NULL WHERE fingerprint = @fingerprint`,
  );
  const refresh = db.prepare(
    `UPDATE findings SET severity = @severity, card_id = @cardId, transaction_id = @transactionId,
       order_no = @orderNo, merchant_order_no = @merchantOrderNo, trade_no = @tradeNo,
       snapshot_at = @snapshotAt, offering_id = @offeringId, currency = @currency,
       expected = @expected, actual = @actual, delta = @delta, expected_minor = @expectedMinor,
       actual_minor = @actualMinor, delta_minor = @deltaMinor, detail = @detail,
       last_seen_at = @at, last_seen_run_id = @runId,
       state = CASE WHEN first_seen_run_id = @runId THEN 'new' ELSE 'persisting' END
     WHERE fingerprint = @fingerprint`,
  );
  const unacknowledge = db.prepare(
    `UPDATE findings SET ack_reason = NULL, ack_until = NULL, ack_at = NULL, ack_expected = NULL,
       ack_actual = NULL WHERE fingerprint = ?`,
  );
  const keepOpen = db.prepare(
    "UPDATE findings SET state = 'persisting' WHERE fingerprint = ? AND state = 'new'",
  );
  const resolve = db.prepare(
    `UPDATE findings SET state = 'resolved', resolved_at = ?, resolved_run_id = ?,
       ack_reason = NULL, ack_until = NULL, ack_at = NULL, ack_expected = NULL, ack_actual = NULL
     WHERE fingerprint = ?`,
  );

  return db
    .transaction((): Reconciliation => {
      const recorded = db
        .prepare(
          `INSERT INTO recon_runs (run_id, reconciled_at, merchants, coverage, current_count,
             new_count, resolved_count, acknowledged_count)
           VALUES (?, ?, ?, ?, 0, 0, 0, 0) ON CONFLICT (run_id) DO NOTHING`,
        )
        .run(runId, at, JSON.stringify(results.merchants), JSON.stringify(results.coverage));
      if (recorded.changes === 0)
        throw new FindingsError(
          'RUN_ALREADY_RECORDED',
          `reconciliation ${runId} is already recorded`,
        );
      rekeyOpenFindings(db);

      const seen = new Set<string>();
      for (const finding of results.findings) {
        if (seen.has(finding.fingerprint)) continue;
        seen.add(finding.fingerprint);
        const values = { ...finding, ...findingMinor(finding), at, runId };
        const before = get.get(finding.fingerprint) as FindingsTable | undefined;
        if (!before) {
          insert.run(values);
          note(finding.fingerprint, 'opened');
          continue;
        }
        if (before.state === 'resolved') {
          reopen.run(values);
          note(finding.fingerprint, 'reopened');
        }
        refresh.run(values);
        const lapse = lapsed(before, finding, at);
        if (lapse) {
          unacknowledge.run(finding.fingerprint);
          note(finding.fingerprint, lapse.event, lapse.detail);
        }
      }

      const ran = new Set(results.coverage.map((c) => `${c.check}\u0000${c.merchantId}`));
      const undecided = new Map(
        results.undecided.map((u) => [`${u.check}\u0000${u.merchantId}`, u.undecided]),
      );
      const open = db
        .prepare("SELECT * FROM findings WHERE state <> 'resolved'")
        .all() as FindingsTable[];
      const resolvedNow: string[] = [];
      const keptOpen: string[] = [];
      for (const row of open) {
        const scope = `${row.check_code}\u0000${row.merchant_id}`;
        if (seen.has(row.fingerprint) || !ran.has(scope)) continue;
        if (names(undecided.get(scope), row)) {
          // Its record was skipped this run: the finding still holds as far as anyone knows.
          keepOpen.run(row.fingerprint);
          if (row.ack_until !== null && Date.parse(row.ack_until) <= Date.parse(at)) {
            unacknowledge.run(row.fingerprint);
            note(row.fingerprint, 'ack_expired', `acknowledged until ${row.ack_until}`);
          }
          keptOpen.push(row.fingerprint);
          continue;
        }
        resolve.run(at, runId, row.fingerprint);
        note(row.fingerprint, 'resolved');
        resolvedNow.push(row.fingerprint);
      }

      const read = (fingerprint: string) => storedFinding(get.get(fingerprint) as FindingsTable);
      const holding = [...seen, ...keptOpen].map(read);
      const current = holding.filter((f) => f.acknowledgement === null);
      const acknowledged = holding.filter((f) => f.acknowledgement !== null);
      const resolved = resolvedNow.map(read);
      db.prepare(
        `UPDATE recon_runs SET current_count = ?, new_count = ?, resolved_count = ?,
           acknowledged_count = ? WHERE run_id = ?`,
      ).run(
        current.length,
        holding.filter((f) => f.state === 'new').length,
        resolved.length,
        acknowledged.length,
        runId,
      );
      return { runId, at, current, acknowledged, resolved };
    })
    .immediate();
}

/** The findings table's column for each id a check may leave undecided. */
const ID_COLUMNS = {
  cardId: 'card_id',
  transactionId: 'transaction_id',
  orderNo: 'order_no',
  merchantOrderNo: 'merchant_order_no',
  tradeNo: 'trade_no',
  snapshotAt: 'snapshot_at',
  offeringId: 'offering_id',
} as const satisfies Record<IdKey, keyof FindingsTable>;

/**
 * Whether `row` is about a record its check left `undecided`: by the finding's identity alone,
 * so a skipped card keeps its card's finding open, not one about a transaction of the card.
 */
function names(undecided: Undecided | undefined, row: FindingsTable): boolean {
  if (!undecided) return false;
  if (undecided.all) return true;
  if (!isCheckCode(row.check_code)) return false;
  const id = (key: IdKey) => row[ID_COLUMNS[key]];
  const keys = identityKeysOf(row.check_code, idsOf(row));
  const skipped = undecided.ids.get(undecidedKey(keys));
  if (!skipped || keys.some((key) => id(key) === null)) return false;
  return skipped.has(keys.map(id).join(ID_SEPARATOR));
}

/** The ids a stored finding names, by the key a check gives them. */
function idsOf(row: FindingsTable): FindingIds {
  const id = (key: IdKey) => row[ID_COLUMNS[key]];
  return {
    cardId: id('cardId'),
    transactionId: id('transactionId'),
    orderNo: id('orderNo'),
    merchantOrderNo: id('merchantOrderNo'),
    tradeNo: id('tradeNo'),
    snapshotAt: id('snapshotAt'),
    offeringId: id('offeringId'),
  };
}

/**
 * Give each open finding the fingerprint of its identity as the store now holds it. A merchant
 * synced before a card showed its id is kept under a provisional one (`source:<name>`,
 * docs/sync.md), and the sync that learns the id moves its rows, findings included, to the real
 * one: their fingerprints still hashed the provisional id, so the next run resolved each and
 * opened it again as `new` under another fingerprint, its first sighting and acknowledgement
 * lost. Re-keyed, the finding is matched as the same one, and its events follow it.
 */
function rekeyOpenFindings(db: SqliteDatabase): void {
  const open = db
    .prepare("SELECT * FROM findings WHERE state <> 'resolved'")
    .all() as FindingsTable[];
  const taken = db.prepare('SELECT 1 FROM findings WHERE fingerprint = ?');
  const rekey = [
    db.prepare('UPDATE findings SET fingerprint = @to WHERE fingerprint = @from'),
    db.prepare('UPDATE finding_events SET fingerprint = @to WHERE fingerprint = @from'),
  ];
  for (const row of open) {
    if (!isCheckCode(row.check_code)) continue;
    const ids = idsOf(row);
    if (identityKeysOf(row.check_code, ids).some((key) => ids[key] === null)) continue;
    const to = fingerprintOf(row.check_code, row.merchant_id, ids);
    if (to === row.fingerprint || taken.get(to)) continue;
    for (const statement of rekey) statement.run({ from: row.fingerprint, to });
  }
}

/** Why an acknowledgement no longer holds for `finding` at `at`, if it does not. */
function lapsed(
  before: FindingsTable,
  finding: Finding,
  at: string,
): { event: EventName; detail: string } | undefined {
  if (before.ack_until === null) return undefined;
  if (Date.parse(before.ack_until) <= Date.parse(at))
    return { event: 'ack_expired', detail: `acknowledged until ${before.ack_until}` };
  if (before.ack_expected !== finding.expected || before.ack_actual !== finding.actual)
    return {
      event: 'ack_changed',
      detail: `acknowledged expected ${before.ack_expected} actual ${before.ack_actual}; now expected ${finding.expected} actual ${finding.actual}`,
    };
  return undefined;
}

/**
 * Acknowledge an open finding: it leaves the main report (reported apart as acknowledged)
 * until `until`, or until its expected or actual value changes.
 * @example ackFinding(db, '3f9a1c0e5b7d2a64', { reason: 'bank fee, ticket 118', until: '2026-12-01T00:00:00.000Z', now })
 * @throws FindingsError FINDING_UNKNOWN, FINDING_RESOLVED, or ACK_INVALID (`field` names `reason`
 *   or `until`: an empty reason, an unreadable instant, or one not after `now`).
 */
export function ackFinding(
  db: SqliteDatabase,
  fingerprint: string,
  ack: { readonly reason: string; readonly until: string; readonly now: string },
): StoredFinding {
  const reason = ack.reason.trim();
  if (reason === '')
    throw new FindingsError('ACK_INVALID', 'an acknowledgement needs a reason', {
      field: 'reason',
    });
  const until = Date.parse(ack.until);
  if (Number.isNaN(until))
    throw new FindingsError('ACK_INVALID', `${JSON.stringify(ack.until)} is not an instant`, {
      field: 'until',
    });
  if (until <= Date.parse(ack.now))
    throw new FindingsError('ACK_INVALID', `${ack.until} is not in the future`, { field: 'until' });
  return db
    .transaction(() => {
      const row = db.prepare('SELECT * FROM findings WHERE fingerprint = ?').get(fingerprint) as
        | FindingsTable
        | undefined;
      if (!row) throw new FindingsError('FINDING_UNKNOWN', `no finding ${fingerprint}`);
      if (row.state === 'resolved')
        throw new FindingsError(
          'FINDING_RESOLVED',
          `finding ${fingerprint} was resolved at ${row.resolved_at}; nothing to acknowledge`,
        );
      const untilText = new Date(until).toISOString();
      db.prepare(
        `UPDATE findings SET ack_reason = ?, ack_until = ?, ack_at = ?, ack_expected = expected,
           ack_actual = actual WHERE fingerprint = ?`,
      ).run(reason, untilText, ack.now, fingerprint);
      db.prepare(
        `INSERT INTO finding_events (fingerprint, run_id, at, event, detail)
         VALUES (?, NULL, ?, 'acknowledged', ?)`,
      ).run(fingerprint, ack.now, `until ${untilText}: ${reason}`);
      return storedFinding(
        db
          .prepare('SELECT * FROM findings WHERE fingerprint = ?')
          .get(fingerprint) as FindingsTable,
      );
    })
    .immediate();
}

/** Findings in the store, open ones by default, by merchant and check code. */
export function listFindings(
  db: SqliteDatabase,
  options: { readonly includeResolved?: boolean; readonly merchantIds?: readonly string[] } = {},
): StoredFinding[] {
  const rows = db
    .prepare(
      `SELECT * FROM findings WHERE (@all OR state <> 'resolved')
       ORDER BY merchant_id, check_code, first_seen_at, fingerprint`,
    )
    .all({ all: options.includeResolved ? 1 : 0 }) as FindingsTable[];
  const merchants = options.merchantIds ? new Set(options.merchantIds) : undefined;
  return rows.filter((row) => !merchants || merchants.has(row.merchant_id)).map(storedFinding);
}
