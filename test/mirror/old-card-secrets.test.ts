import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrateMirror, readMigrations } from '../../src/mirror/migrations.js';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { QuarantineWriter } from '../../src/mirror/quarantine-writer.js';
import { TransactionWriter } from '../../src/mirror/transaction-writer.js';
import { Database } from '../../src/sqlite-driver.js';
import { context, transaction, useTempMirrors } from './mirror-fixtures.js';

const temp = useTempMirrors();

const VISA = '4111111111111111';
const RUN1 = context('run-1', '2026-02-01T02:00:00.000Z');
const RUN2 = context('run-2', '2026-02-02T02:00:00.000Z');

/** A card the upstream sent with its full number and CVV, malformed (lastFour is the number). */
const MALFORMED_CARD = {
  cardId: 'card-7',
  lastFour: VISA,
  cardNumber: VISA,
  cvv: '123',
  status: 'ACTIVE',
};

/** A mirror at `version`, made by the cardsync of that version. */
function mirrorAt(version: number): { file: string; db: Database } {
  const file = join(temp.dir(), `v${version}.sqlite`);
  const db = new Database(file);
  migrateMirror(db, readMigrations().slice(0, version));
  return { file, db };
}

/**
 * Quarantine `raw` as a cardsync before b7cb1b8 (schema 13 and older) did: the raw JSON and the
 * reason as sent, hashed as they are.
 */
function quarantineAsBefore(db: Database, raw: unknown, at: string, runId: string) {
  const json = JSON.stringify(raw);
  db.prepare(
    `INSERT INTO quarantine (merchant_id, resource, record_id, reason, raw_json, raw_sha256,
       first_seen_at, last_seen_at, last_run_id, seen_count)
     VALUES ('m-1', 'cards', 'card-7', ?, ?, ?, ?, ?, ?, 3)`,
  ).run(
    `/lastFour must match pattern: ${VISA}`,
    json,
    createHash('sha256').update(json).digest('hex'),
    '2026-01-20T02:00:00.000Z',
    at,
    runId,
  );
}

function quarantineRows(db: Database) {
  return db
    .prepare(
      `SELECT record_id, reason, raw_json, first_seen_at, last_seen_at, last_run_id, seen_count,
              resolved_at
       FROM quarantine ORDER BY quarantine_id`,
    )
    .all();
}

describe('a mirror written before card numbers were kept out of it', () => {
  it('has the card numbers and CVVs of its quarantine and merchant names replaced on upgrade', () => {
    const old = mirrorAt(13);
    quarantineAsBefore(old.db, MALFORMED_CARD, '2026-01-25T02:00:00.000Z', 'run-0');
    new TransactionWriter(old.db).write(
      [transaction({ merchantName: 'ACME *4000 0051 3252 2674' })],
      RUN1,
    );
    old.db.close();

    const mirror = openMirror(old.file);
    temp.defer(() => mirror.close());
    expect(quarantineRows(mirror.db)).toEqual([
      {
        record_id: 'card-7',
        reason: '/lastFour must match pattern: [redacted]',
        raw_json: JSON.stringify({
          cardId: 'card-7',
          lastFour: '[redacted]',
          cardNumber: '[redacted]',
          cvv: '[redacted]',
          status: 'ACTIVE',
        }),
        first_seen_at: '2026-01-20T02:00:00.000Z',
        last_seen_at: '2026-01-25T02:00:00.000Z',
        last_run_id: 'run-0',
        seen_count: 3,
        resolved_at: null,
      },
    ]);
    expect(
      mirror.db.prepare('SELECT transaction_id, merchant_name, updated_at FROM transactions').all(),
    ).toEqual([
      { transaction_id: 'tx-1', merchant_name: 'ACME *[redacted]', updated_at: RUN1.observedAt },
    ]);
  });

  it('keeps one quarantine row for a record seen before and after the upgrade that redacts it', () => {
    // Quarantined before the redaction by an older cardsync, then again by one that redacts:
    // two rows of one record, the older with the card number.
    const old = mirrorAt(18);
    quarantineAsBefore(old.db, MALFORMED_CARD, '2026-01-25T02:00:00.000Z', 'run-0');
    const malformed = {
      resource: 'cards' as const,
      recordId: 'card-7',
      reason: `/lastFour must match pattern: ${VISA}`,
      raw: MALFORMED_CARD,
    };
    new QuarantineWriter(old.db).write([malformed], RUN1);
    old.db.close();

    const mirror = openMirror(old.file);
    temp.defer(() => mirror.close());
    new QuarantineWriter(mirror.db).write([malformed], RUN2);
    expect(quarantineRows(mirror.db)).toEqual([
      expect.objectContaining({
        reason: '/lastFour must match pattern: [redacted]',
        first_seen_at: '2026-01-20T02:00:00.000Z',
        last_seen_at: RUN2.observedAt,
        last_run_id: 'run-2',
        seen_count: 5,
      }),
    ]);
    expect(JSON.stringify(quarantineRows(mirror.db))).not.toContain(VISA);
  });
});
