import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Card, Offering, Transaction } from '../../src/contract/index.js';
import { migrateMirror, readMigrations, SQL_DIR } from '../../src/mirror/migrations.js';
import { minorColumn } from '../../src/mirror/minor-column.js';
import { createMirrorWriters, type MirrorWriters } from '../../src/mirror/mirror-writers.js';
import { type Mirror, openMirror } from '../../src/mirror/open-mirror.js';
import type { SqliteDatabase } from '../../src/mirror/sqlite-database.js';
import { currencyExponent, KNOWN_CURRENCIES } from '../../src/money/currency.js';
import type { Check } from '../../src/recon/check.js';
import { CHECK_CODES, type CheckCode } from '../../src/recon/check-code.js';
import { cardBalanceMismatch } from '../../src/recon/checks/card-balance-mismatch.js';
import { unjournaledCard } from '../../src/recon/checks/unjournaled-card.js';
import { findingMinor, REPORTS_AMOUNTS } from '../../src/recon/finding-minor.js';
import { ackFinding, recordReconciliation } from '../../src/recon/findings-store.js';
import { moneyText } from '../../src/recon/money-text.js';
import { DEFAULT_RECON_SETTINGS } from '../../src/recon/recon-settings.js';
import { runChecks } from '../../src/recon/run-checks.js';
import { transactionEffectSql } from '../../src/recon/transaction-effect-sql.js';
import { Database } from '../../src/sqlite-driver.js';
import { runOn } from '../recon/support/run-one.js';
import {
  DAY,
  HISTORY_AT,
  HOUR,
  MINUTE,
  openLedger,
  READ_AT,
  shift,
} from '../recon/support/test-ledger.js';
import { context, useTempMirrors } from './mirror-fixtures.js';

const temp = useTempMirrors();

/** An instant of March 2026 from its `MM-DDTHH:MM`, e.g. `at('03-05T02:00')`. */
const at = (time: string) => `2026-${time}:00.000Z`;

/** When the sync read the card list (`cards.observed_at`). */
const READ = at('03-05T02:00');
const RUN1_CARDS = context('run-1', READ);
/** The transactions were mirrored a little after the card list, as a sync does. */
const RUN1_TX = context('run-1', at('03-05T02:10'));
/** A purchase made after the balance read, first mirrored by the next night's run. */
const RUN2_TX = context('run-2', at('03-06T02:10'));
const UNJOURNALED =
  'no linked ISSUE order in the journal: expected balance unknown (UNJOURNALED_CARD)';

const VIEWS = [
  'card_balance_check',
  'card_ledger',
  'currency_exponents',
  'fees_by_offering_day',
  'latest_merchant_balance',
  'open_findings',
  'order_outcomes',
  'sync_freshness',
  'transactions_daily',
];

function offering(id: string, name: string, currency: string, issuanceFee: string): Offering {
  const jpy = currency === 'JPY';
  return {
    id,
    name,
    network: 'VISA',
    type: 'VIRTUAL',
    currency,
    minLoadAmount: jpy ? '1000' : '10.00',
    maxLoadAmount: jpy ? '500000' : '5000.00',
    issuanceFee,
    depositFeePercent: '1.5',
    requiresHolder: false,
  };
}

function card(cardId: string, offeringId: string, status: Card['status'], balance: string): Card {
  const jpy = offeringId === 'off-jp';
  return {
    cardId,
    merchantId: jpy ? 'm-2' : 'm-1',
    cardOfferingId: offeringId,
    lastFour: '4242',
    status,
    balance,
    currency: jpy ? 'JPY' : 'USD',
    createdAt: at('03-01T08:00'),
  };
}

/** [id, card, type, status, amount, fee, `MM-DDTHH:MM`, tradeNo (default `trd-<id>`)]. */
type Tx = [
  string,
  string,
  Transaction['type'],
  Transaction['status'],
  string,
  string,
  string,
  string?,
];

function tx(
  [id, cardId, type, status, amount, fee, time, tradeNo]: Tx,
  currency = 'USD',
): Transaction {
  return {
    transactionId: id,
    cardId,
    tradeNo: tradeNo ?? `trd-${id}`,
    type,
    status,
    amount,
    currency,
    merchantName: type === 'PURCHASE' ? 'Corner Shop' : 'Card Issuer',
    fee,
    createdAt: at(time),
  };
}

/** [merchantOrderNo, kind, orderNo, amount, cardId, `MM-DDTHH:MM`, state (default IMPORTED)]. */
type Order = [string, string, string | null, string | null, string | null, string, string?];

function insertOrders(
  db: SqliteDatabase,
  orders: readonly Order[],
  merchantId = 'm-1',
  currency = 'USD',
): void {
  const insert = db.prepare(
    `INSERT INTO orders (merchant_order_no, merchant_id, kind, card_id, offering_id, amount,
       amount_minor, currency, submitted_at, order_no, state, source, created_at, updated_at)
     VALUES (@no, @merchantId, @kind, @cardId, @offeringId, @amount, @amountMinor, @currency,
       @submittedAt, @orderNo, @state, @source, @submittedAt, @submittedAt)`,
  );
  for (const [no, kind, orderNo, amount, cardId, time, state] of orders) {
    insert.run({
      no,
      merchantId,
      kind,
      cardId,
      offeringId: kind === 'ISSUE' ? (currency === 'JPY' ? 'off-jp' : 'off-1') : null,
      amount,
      amountMinor: amount === null ? null : minorColumn(amount, currency),
      currency: amount === null ? null : currency,
      submittedAt: at(time),
      orderNo,
      state: state ?? 'IMPORTED',
      source: state === undefined ? 'import' : 'cli',
    });
  }
}

/**
 * The scenario the tests read: merchant m-1 (USD) with a card that balances over every
 * transaction type and status (card-a), one that does not (card-b), a CANCELLED one (card-c),
 * one the journal does not know (card-d, another offering), one with amounts too precise for
 * USD (card-e), a FEE of a card the mirror lacks; merchant m-2 with a JPY card (card-j).
 */
function scenario(mirror: Mirror): MirrorWriters {
  const writers = createMirrorWriters(mirror.db);
  const m2 = { merchantId: 'm-2' };
  writers.atomically(() => {
    const site = { baseUrl: 'https://issuer.test' };
    writers.merchants.upsertMerchant({ ...site, merchantId: 'm-1', source: 'main' }, READ, 'USD');
    writers.merchants.upsertMerchant({ ...site, merchantId: 'm-2', source: 'japan' }, READ, 'JPY');
    writers.offerings.write(
      [
        offering('off-1', 'Virtual Visa', 'USD', '2.00'),
        offering('off-2', 'Plastic Mastercard', 'USD', '5.00'),
      ],
      RUN1_CARDS,
    );
    writers.offerings.write([offering('off-jp', 'JPY Virtual', 'JPY', '500')], {
      ...RUN1_CARDS,
      ...m2,
    });
    writers.cards.write(
      [
        card('card-a', 'off-1', 'ACTIVE', '115.69'),
        card('card-b', 'off-1', 'ACTIVE', '17.50'),
        card('card-c', 'off-1', 'CANCELLED', '0.00'),
        card('card-d', 'off-2', 'ACTIVE', '12.00'),
        card('card-e', 'off-1', 'ACTIVE', '56.99'),
      ],
      RUN1_CARDS,
    );
    writers.cards.write([card('card-j', 'off-jp', 'ACTIVE', '8300')], { ...RUN1_CARDS, ...m2 });
    const usd: Tx[] = [
      // card-a, every type and status: orders +100.00 +50.00 -20.00, transactions -14.31.
      ['fee-a1', 'card-a', 'FEE', 'COMPLETED', '2.00', '0.00', '03-01T09:01', 'ord-a1'],
      ['fee-a2', 'card-a', 'FEE', 'SETTLED', '0.75', '0.00', '03-02T09:01', 'ord-a2'],
      ['fee-a3', 'card-a', 'FEE', 'COMPLETED', '0.00', '0.00', '03-02T10:01', 'ord-a3'],
      ['fee-a4', 'card-a', 'FEE', 'DECLINED', '0.00', '0.00', '03-02T11:01', 'ord-a4'],
      ['pur-a1', 'card-a', 'PURCHASE', 'COMPLETED', '10.00', '0.10', '03-03T08:00'],
      ['pur-a2', 'card-a', 'PURCHASE', 'PENDING', '5.00', '0.00', '03-03T09:00'],
      ['pur-a3', 'card-a', 'PURCHASE', 'SETTLED', '3.00', '0.05', '03-03T10:00'],
      ['pur-a4', 'card-a', 'PURCHASE', 'DECLINED', '7.00', '0.00', '03-03T11:00'],
      ['svc-a1', 'card-a', 'FEE', 'PENDING', '0.30', '0.00', '03-03T12:00'],
      ['ref-a1', 'card-a', 'REFUND', 'PENDING', '2.00', '0.00', '03-04T08:00', 'trd-pur-a3'],
      ['ref-a2', 'card-a', 'REFUND', 'COMPLETED', '4.00', '0.10', '03-04T09:00', 'trd-pur-a1'],
      ['rev-a1', 'card-a', 'REVERSAL', 'COMPLETED', '3.00', '0.00', '03-04T10:00', 'trd-pur-a3'],
      ['ver-a1', 'card-a', 'VERIFICATION', 'COMPLETED', '0.00', '0.01', '03-04T11:00'],
      ['ver-a2', 'card-a', 'VERIFICATION', 'DECLINED', '0.00', '0.50', '03-04T11:30'],
      // card-b: 25.00 - 2.00 - 5.00 = 18.00, but it reports 17.50.
      ['fee-b1', 'card-b', 'FEE', 'COMPLETED', '2.00', '0.00', '03-01T09:11', 'ord-b1'],
      ['pur-b1', 'card-b', 'PURCHASE', 'COMPLETED', '5.00', '0.00', '03-03T12:00'],
      // card-c: CANCELLED, so 0 whatever happened before.
      ['fee-c1', 'card-c', 'FEE', 'COMPLETED', '2.00', '0.00', '03-01T09:21', 'ord-c1'],
      ['pur-c1', 'card-c', 'PURCHASE', 'SETTLED', '8.00', '0.00', '03-02T12:00'],
      ['fee-c2', 'card-c', 'FEE', 'COMPLETED', '0.00', '0.00', '03-02T13:01', 'ord-c2'],
      // card-d: no journal ISSUE; a fee too precise for USD.
      ['pur-d1', 'card-d', 'PURCHASE', 'COMPLETED', '3.00', '0.00', '03-03T13:00'],
      ['fee-d1', 'card-d', 'FEE', 'COMPLETED', '0.125', '0.00', '03-03T14:00'],
      ['fee-d2', 'card-d', 'FEE', 'COMPLETED', '1.00', '0.00', '03-03T15:00'],
      // card-e: a deposit whose journal amount, and a purchase, are too precise for USD.
      ['fee-e1', 'card-e', 'FEE', 'COMPLETED', '2.00', '0.00', '03-01T09:31', 'ord-e1'],
      ['fee-e2', 'card-e', 'FEE', 'COMPLETED', '0.15', '0.00', '03-03T09:01', 'ord-e2'],
      ['pur-e1', 'card-e', 'PURCHASE', 'COMPLETED', '1.005', '0.00', '03-03T16:00'],
      // a FEE of a card the mirror does not hold.
      ['fee-zz', 'card-zz', 'FEE', 'COMPLETED', '0.50', '0.00', '03-04T12:00'],
    ];
    writers.transactions.write(
      usd.map((row) => tx(row)),
      RUN1_TX,
    );
    const jpy: Tx[] = [
      ['fee-j1', 'card-j', 'FEE', 'COMPLETED', '500', '0', '03-01T10:01', 'ord-j1'],
      ['pur-j1', 'card-j', 'PURCHASE', 'COMPLETED', '1200', '0', '03-02T10:00'],
    ];
    writers.transactions.write(
      jpy.map((row) => tx(row, 'JPY')),
      { ...RUN1_TX, ...m2 },
    );
    writers.transactions.write(
      [tx(['late-a1', 'card-a', 'PURCHASE', 'COMPLETED', '9.00', '0.00', '03-05T03:00'])],
      RUN2_TX,
    );
    insertOrders(mirror.db, [
      ['mo-a1', 'ISSUE', 'ord-a1', '100.00', null, '03-01T09:00'],
      ['mo-a2', 'DEPOSIT', 'ord-a2', '50.00', 'card-a', '03-02T09:00'],
      ['mo-a3', 'WITHDRAW', 'ord-a3', '20.00', 'card-a', '03-02T10:00'],
      ['mo-a4', 'DEPOSIT', 'ord-a4', '30.00', 'card-a', '03-02T11:00'],
      ['mo-b1', 'ISSUE', 'ord-b1', '25.00', null, '03-01T09:10'],
      ['mo-c1', 'ISSUE', 'ord-c1', '40.00', null, '03-01T09:20'],
      ['mo-c2', 'CANCEL', 'ord-c2', null, 'card-c', '03-02T13:00'],
      ['mo-e1', 'ISSUE', 'ord-e1', '60.00', null, '03-01T09:30'],
      ['mo-e2', 'DEPOSIT', 'ord-e2', '10.005', 'card-e', '03-03T09:00'],
      ['mo-x1', 'ISSUE', null, '99.00', null, '03-03T09:10', 'REJECTED'],
      ['mo-x2', 'ISSUE', null, '15.00', null, '03-03T09:20'],
      ['mo-x3', 'DEPOSIT', 'ord-x3', '5.00', 'card-b', '03-04T09:00', 'ACCEPTED'],
      ['mo-x4', 'TOPUP', null, '500.00', null, '03-04T09:30'],
      ['mo-x5', 'WITHDRAW', null, '1.00', 'card-c', '03-04T09:40', 'SUBMITTED'],
    ]);
    insertOrders(
      mirror.db,
      [['mo-j1', 'ISSUE', 'ord-j1', '10000', null, '03-01T10:00']],
      'm-2',
      'JPY',
    );
  });
  return writers;
}

/**
 * Journal a DEPOSIT of card-b without an order_no (on the `scenario` mirror) and expect
 * `card_balance_check` to leave the card unchecked, as CARD_BALANCE_MISMATCH does.
 */
function expectUncheckedOnceADepositHasNoOrderNo(db: SqliteDatabase): void {
  insertOrders(db, [['mo-b9', 'DEPOSIT', null, '0.50', 'card-b', '03-03T09:00']]);
  expect(
    table(
      db,
      `SELECT expected, check_result, unchecked_reason
       FROM card_balance_check WHERE card_id = 'card-b'`,
    ),
  ).toEqual([
    [
      null,
      'unchecked',
      'a DEPOSIT or WITHDRAW of the card has no order_no: its outcome cannot be linked',
    ],
  ]);
}

/** The rows of `sql` as arrays of values, in column order. */
function table(db: SqliteDatabase, sql: string): unknown[][] {
  return db.prepare(sql).raw().all() as unknown[][];
}

/** The rows of `sql` as objects. */
function rows(db: SqliteDatabase, sql: string): Record<string, unknown>[] {
  return db.prepare(sql).all() as Record<string, unknown>[];
}

/** The statements of a SQL file, split on `;` outside quotes and `--` comments. */
function statementsOf(text: string): string[] {
  const statements: string[] = [];
  let current = '';
  let quote: string | null = null;
  let comment = false;
  for (const char of text) {
    if (comment) {
      if (char === '\n') comment = false;
    } else if (quote) {
      if (char === quote) quote = null;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === '-' && current.endsWith('-')) {
      comment = true;
    } else if (char === ';') {
      statements.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  statements.push(current);
  return statements.map((s) => s.replace(/^\s*--.*$/gm, '').trim()).filter((s) => s !== '');
}

describe('004_analyst_views', () => {
  it('creates every view, each documented by a comment inside its CREATE VIEW', () => {
    const mirror = temp.open();
    const views = rows(
      mirror.db,
      "SELECT name, sql FROM sqlite_master WHERE type = 'view' ORDER BY name",
    ) as { name: string; sql: string }[];
    expect(views.map((v) => v.name)).toEqual(VIEWS);
    for (const view of views) expect(view.sql).toMatch(/ AS\s*\n-- \S/);
  });

  it('does its arithmetic in integers: no REAL, float literal or julianday in the SQL', () => {
    const file = readFileSync(join(SQL_DIR, '004_analyst_views.sql'), 'utf8');
    const code = file.replace(/--.*$/gm, '');
    expect(code).not.toMatch(/\bREAL\b|\bFLOAT\b|\bDOUBLE\b|julianday|\btotal\(|\bavg\(|\d\.\d/i);
  });

  it('knows exactly the currencies and exponents of src/money/currency.ts', () => {
    const mirror = temp.open();
    expect(table(mirror.db, 'SELECT * FROM currency_exponents ORDER BY currency')).toEqual(
      KNOWN_CURRENCIES.map((c) => [c, currencyExponent(c), 10 ** currencyExponent(c)]),
    );
  });

  it('keeps the mirror data when migrating a version-2 file to the newest version', async () => {
    const file = join(temp.dir(), 'v2.sqlite');
    const raw = new Database(file);
    migrateMirror(raw, readMigrations().slice(0, 2));
    createMirrorWriters(raw).cards.write([card('card-1', 'off-1', 'ACTIVE', '7.00')], RUN1_CARDS);
    insertOrders(raw, [['mo-1', 'ISSUE', 'ord-1', '7.00', null, '03-01T09:00']]);
    raw.close();

    const mirror = openMirror(file);
    temp.defer(() => mirror.close());
    expect(mirror.migration.from).toBe(2);
    expect(mirror.migration.applied).toEqual(
      expect.arrayContaining(['003_findings', '004_analyst_views']),
    );
    expect(table(mirror.db, 'SELECT card_id, balance_minor FROM cards')).toEqual([['card-1', 700]]);
    expect(
      table(mirror.db, 'SELECT card_id, check_result, unchecked_reason FROM card_balance_check'),
    ).toEqual([['card-1', 'unchecked', UNJOURNALED]]);
    expect(table(mirror.db, 'SELECT merchant_order_no, outcome FROM order_outcomes')).toEqual([
      ['mo-1', 'awaiting_outcome'],
    ]);
  });

  it('keeps the findings when migrating a version-3 file to the newest version', async () => {
    const file = join(temp.dir(), 'v3.sqlite');
    const raw = new Database(file);
    migrateMirror(raw, readMigrations().slice(0, 3));
    insertFinding(raw, { fingerprint: 'fp-1' });
    raw.close();

    const mirror = openMirror(file);
    temp.defer(() => mirror.close());
    expect(mirror.migration.from).toBe(3);
    expect(mirror.migration.applied[0]).toBe('004_analyst_views');
    expect(table(mirror.db, 'SELECT fingerprint, state FROM findings')).toEqual([['fp-1', 'new']]);
    expect(
      table(mirror.db, 'SELECT fingerprint, ack_state, in_main_report FROM open_findings'),
    ).toEqual([['fp-1', 'none', 1]]);
  });

  it('gives a mirror at version 6 of the first 006 (fee_pending_orders) the views of a new one', async () => {
    // The cardsync of a1633a1 shipped 006 as `fee_pending_orders`: it recreated card_ledger
    // alone (as today's 006 does) and kept card_balance_check of 004. Today's 006 took its
    // number, so a mirror it migrated is at version 6 and never gets today's 006.
    const today = readFileSync(join(SQL_DIR, '006_balance_view_orders.sql'), 'utf8');
    const ledger = today.slice(
      today.indexOf('CREATE VIEW card_ledger'),
      today.indexOf('CREATE VIEW card_balance_check'),
    );
    const file = join(temp.dir(), 'v6-fee-pending.sqlite');
    const raw = new Database(file);
    migrateMirror(raw, [
      ...readMigrations().slice(0, 5),
      { version: 6, name: 'fee_pending_orders', sql: `DROP VIEW card_ledger;\n${ledger}` },
    ]);
    raw.close();

    const mirror = openMirror(file);
    temp.defer(() => mirror.close());
    expect(mirror.migration.from).toBe(6);
    scenario(mirror);
    expectUncheckedOnceADepositHasNoOrderNo(mirror.db);
    const views = "SELECT name, sql FROM sqlite_master WHERE type = 'view' ORDER BY name";
    expect(table(mirror.db, views)).toEqual(table(temp.open().db, views));
  });
});

describe('card_balance_check', () => {
  it('holds each card against its ledger of completed orders and transactions, in minor units', () => {
    const mirror = temp.open();
    scenario(mirror);
    expect(
      table(
        mirror.db,
        `SELECT card_id, issue_linked, orders_counted, orders_minor, transactions_counted,
                transactions_minor, transactions_after_read, too_precise, expected_minor,
                expected, difference_minor, difference, check_result
         FROM card_balance_check ORDER BY card_id`,
      ),
    ).toEqual([
      ['card-a', 1, 3, 13000, 14, -1431, 1, 0, 11569, '115.69', 0, '0.00', 'match'],
      ['card-b', 1, 1, 2500, 2, -700, 0, 0, 1800, '18.00', -50, '-0.50', 'mismatch'],
      ['card-c', 1, 1, 4000, 3, -1000, 0, 0, 0, '0.00', 0, '0.00', 'match'],
      ['card-d', 0, 0, 0, 3, -400, 0, 1, null, null, null, null, 'unchecked'],
      ['card-e', 1, 2, 6000, 3, -215, 0, 2, null, null, null, null, 'unchecked'],
      ['card-j', 1, 1, 10000, 2, -1700, 0, 0, 8300, '8300', 0, '0', 'match'],
    ]);
    expect(
      table(mirror.db, 'SELECT card_id, unchecked_reason FROM card_balance_check ORDER BY card_id'),
    ).toEqual([
      ['card-a', null],
      ['card-b', null],
      ['card-c', null],
      ['card-d', UNJOURNALED],
      ['card-e', '2 ledger amount(s) too precise for the currency (PRECISION_VIOLATION)'],
      ['card-j', null],
    ]);
    expect(rows(mirror.db, "SELECT * FROM card_balance_check WHERE card_id = 'card-b'")).toEqual([
      {
        merchant_id: 'm-1',
        card_id: 'card-b',
        card_offering_id: 'off-1',
        status: 'ACTIVE',
        currency: 'USD',
        balance_read_at: READ,
        balance: '17.50',
        balance_minor: 1750,
        issue_linked: 1,
        orders_counted: 1,
        orders_minor: 2500,
        transactions_counted: 2,
        transactions_minor: -700,
        transactions_after_read: 0,
        too_precise: 0,
        expected_minor: 1800,
        expected: '18.00',
        difference_minor: -50,
        difference: '-0.50',
        check_result: 'mismatch',
        unchecked_reason: null,
      },
    ]);
  });

  it('computes in integers only: every *_minor column is an integer or NULL', () => {
    const mirror = temp.open();
    scenario(mirror);
    const types = table(
      mirror.db,
      `SELECT DISTINCT typeof(balance_minor), typeof(orders_minor), typeof(transactions_minor),
              typeof(expected_minor), typeof(difference_minor)
       FROM card_balance_check`,
    ).flat();
    expect(new Set(types)).toEqual(new Set(['integer', 'null']));
  });

  it('says so when the balance itself is too precise for its currency', () => {
    const mirror = temp.open();
    const writers = scenario(mirror);
    writers.cards.write([card('card-b', 'off-1', 'ACTIVE', '17.505')], RUN1_CARDS);
    expect(
      table(
        mirror.db,
        `SELECT balance_minor, expected, difference, check_result, unchecked_reason
         FROM card_balance_check WHERE card_id = 'card-b'`,
      ),
    ).toEqual([
      [
        null,
        '18.00',
        null,
        'unchecked',
        'balance too precise for its currency, or currency unknown (PRECISION_VIOLATION)',
      ],
    ]);
  });

  it('leaves a card unchecked, as the check does, when one of its deposits has no order_no', () => {
    const mirror = temp.open();
    scenario(mirror);
    expectUncheckedOnceADepositHasNoOrderNo(mirror.db);
    const { findings } = runChecks(mirror.db, {
      merchantIds: ['m-1'],
      settings: DEFAULT_RECON_SETTINGS,
      checks: [cardBalanceMismatch],
    });
    expect(findings.filter((f) => f.cardId === 'card-b')).toEqual([]);
  });

  it('finds the same mismatches, with the same amounts, as the CARD_BALANCE_MISMATCH check', () => {
    const mirror = temp.open();
    scenario(mirror);
    const { findings } = runChecks(mirror.db, {
      merchantIds: ['m-1', 'm-2'],
      settings: DEFAULT_RECON_SETTINGS,
      checks: [cardBalanceMismatch],
    });
    expect(findings.length).toBeGreaterThan(0);
    expect(
      table(
        mirror.db,
        `SELECT card_id, expected, balance, difference FROM card_balance_check
         WHERE check_result = 'mismatch' ORDER BY card_id`,
      ),
    ).toEqual(findings.map((f) => [f.cardId, f.expected, f.actual, f.delta]));
  });

  it('leaves a card unchecked, as the check does, when its ledger holds another currency', () => {
    const mirror = temp.open();
    const writers = scenario(mirror);
    // A 1.00 EUR purchase on USD card-a (CURRENCY_MISMATCH), which the upstream did not take
    // off: adding its 100 minor units to the USD ones showed a mismatch of 1.00 "USD".
    writers.transactions.write(
      [tx(['pur-a9', 'card-a', 'PURCHASE', 'COMPLETED', '1.00', '0.00', '03-04T13:00'], 'EUR')],
      RUN1_TX,
    );
    // USD card-b's deposit journaled in JPY: 500 yen are no 5.00 USD.
    writers.transactions.write(
      [tx(['fee-b2', 'card-b', 'FEE', 'COMPLETED', '0.00', '0.00', '03-02T08:01', 'ord-b2'])],
      RUN1_TX,
    );
    insertOrders(
      mirror.db,
      [['mo-b2', 'DEPOSIT', 'ord-b2', '500', 'card-b', '03-02T08:00']],
      'm-1',
      'JPY',
    );
    const mixed = `SELECT card_id, expected_minor, expected, difference_minor, check_result,
                          unchecked_reason
                   FROM card_balance_check WHERE card_id IN ('card-a', 'card-b') ORDER BY card_id`;
    expect(table(mirror.db, mixed)).toEqual([
      [
        'card-a',
        null,
        null,
        null,
        'unchecked',
        "a transaction of the card is in another currency than the card's (CURRENCY_MISMATCH): its amount cannot be added",
      ],
      [
        'card-b',
        null,
        null,
        null,
        'unchecked',
        "a completed order of the card is journaled in another currency than the card's: its amount cannot be added",
      ],
    ]);
    const { findings } = runChecks(mirror.db, {
      merchantIds: ['m-1'],
      settings: DEFAULT_RECON_SETTINGS,
      checks: [cardBalanceMismatch],
    });
    expect(findings.filter((f) => f.cardId === 'card-a' || f.cardId === 'card-b')).toEqual([]);
  });

  it('leaves a card unchecked, as the check does, while a transaction of it is in quarantine', () => {
    const mirror = temp.open();
    const writers = scenario(mirror);
    // The upstream took a 5.00 purchase off card-a, but sent the record malformed: the sync set
    // it aside, so the ledger lacks it and the card looked 5.00 short.
    writers.cards.write([card('card-a', 'off-1', 'ACTIVE', '110.69')], RUN1_CARDS);
    writers.quarantine.write(
      [
        {
          resource: 'transactions',
          recordId: 'pur-a8',
          reason: 'amount: not a decimal',
          raw: { transactionId: 'pur-a8', cardId: 'card-a', type: 'PURCHASE', amount: '5,00' },
        },
      ],
      RUN1_TX,
    );
    expect(
      table(
        mirror.db,
        `SELECT expected, difference, check_result, unchecked_reason
         FROM card_balance_check WHERE card_id = 'card-a'`,
      ),
    ).toEqual([
      [
        null,
        null,
        'unchecked',
        'a transaction of it is in quarantine (malformed upstream record): the mirror lacks it',
      ],
    ]);
    const { findings } = runChecks(mirror.db, {
      merchantIds: ['m-1'],
      settings: DEFAULT_RECON_SETTINGS,
      checks: [cardBalanceMismatch],
    });
    expect(findings.filter((f) => f.cardId === 'card-a')).toEqual([]);
  });

  it('gives every transaction the effect the reconciliation gives it', () => {
    const mirror = temp.open();
    scenario(mirror);
    const fromRecon = table(
      mirror.db,
      `SELECT t.transaction_id, ${transactionEffectSql('t')}
       FROM transactions t JOIN cards c ON c.card_id = t.card_id ORDER BY t.transaction_id`,
    );
    const fromView = table(
      mirror.db,
      `SELECT transaction_id, effect_minor FROM card_ledger
       WHERE source = 'transaction' ORDER BY transaction_id`,
    );
    expect(fromView).toEqual(fromRecon);
    expect(fromView).toHaveLength(28);
  });
});

describe('card_ledger', () => {
  it('lists a card entry by entry, each order dated by its FEE record', () => {
    const mirror = temp.open();
    scenario(mirror);
    expect(
      table(
        mirror.db,
        `SELECT source, entry_type, status, coalesce(merchant_order_no, transaction_id),
                effect_minor, effect, visible_at_read
         FROM card_ledger WHERE card_id = 'card-a' ORDER BY created_at, source`,
      ),
    ).toEqual([
      ['order', 'ISSUE', 'COMPLETED', 'mo-a1', 10000, '100.00', 1],
      ['transaction', 'FEE', 'COMPLETED', 'fee-a1', -200, '-2.00', 1],
      ['order', 'DEPOSIT', 'SETTLED', 'mo-a2', 5000, '50.00', 1],
      ['transaction', 'FEE', 'SETTLED', 'fee-a2', -75, '-0.75', 1],
      ['order', 'WITHDRAW', 'COMPLETED', 'mo-a3', -2000, '-20.00', 1],
      ['transaction', 'FEE', 'COMPLETED', 'fee-a3', 0, '0.00', 1],
      ['transaction', 'FEE', 'DECLINED', 'fee-a4', 0, '0.00', 1],
      ['transaction', 'PURCHASE', 'COMPLETED', 'pur-a1', -1010, '-10.10', 1],
      ['transaction', 'PURCHASE', 'PENDING', 'pur-a2', -500, '-5.00', 1],
      ['transaction', 'PURCHASE', 'SETTLED', 'pur-a3', -305, '-3.05', 1],
      ['transaction', 'PURCHASE', 'DECLINED', 'pur-a4', 0, '0.00', 1],
      ['transaction', 'FEE', 'PENDING', 'svc-a1', -30, '-0.30', 1],
      ['transaction', 'REFUND', 'PENDING', 'ref-a1', 0, '0.00', 1],
      ['transaction', 'REFUND', 'COMPLETED', 'ref-a2', 390, '3.90', 1],
      ['transaction', 'REVERSAL', 'COMPLETED', 'rev-a1', 300, '3.00', 1],
      ['transaction', 'VERIFICATION', 'COMPLETED', 'ver-a1', -1, '-0.01', 1],
      ['transaction', 'VERIFICATION', 'DECLINED', 'ver-a2', 0, '0.00', 1],
      ['transaction', 'PURCHASE', 'COMPLETED', 'late-a1', -900, '-9.00', 0],
    ]);
  });

  it('sums, over what the balance read could reflect, to the expected balance', () => {
    const mirror = temp.open();
    scenario(mirror);
    expect(
      table(
        mirror.db,
        `SELECT l.card_id, sum(l.effect_minor), b.expected_minor
         FROM card_ledger l JOIN card_balance_check b ON b.card_id = l.card_id
         WHERE l.visible_at_read AND b.expected_minor IS NOT NULL AND b.status <> 'CANCELLED'
         GROUP BY l.card_id ORDER BY l.card_id`,
      ),
    ).toEqual([
      ['card-a', 11569, 11569],
      ['card-b', 1800, 1800],
      ['card-j', 8300, 8300],
    ]);
  });

  it('leaves the too-precise entries without an effect, and the JPY ones without decimals', () => {
    const mirror = temp.open();
    scenario(mirror);
    expect(
      table(
        mirror.db,
        `SELECT card_id, coalesce(merchant_order_no, transaction_id), effect_minor, effect
         FROM card_ledger WHERE card_id IN ('card-e', 'card-j')
         ORDER BY card_id, created_at, source`,
      ),
    ).toEqual([
      ['card-e', 'mo-e1', 6000, '60.00'],
      ['card-e', 'fee-e1', -200, '-2.00'],
      ['card-e', 'mo-e2', null, null],
      ['card-e', 'fee-e2', -15, '-0.15'],
      ['card-e', 'pur-e1', null, null],
      ['card-j', 'mo-j1', 10000, '10000'],
      ['card-j', 'fee-j1', -500, '-500'],
      ['card-j', 'pur-j1', -1200, '-1200'],
    ]);
  });
});

describe('order_outcomes', () => {
  it('links each journal order to its FEE record and names its outcome', () => {
    const mirror = temp.open();
    scenario(mirror);
    expect(
      table(
        mirror.db,
        `SELECT merchant_order_no, kind, order_no, card_id, fee_transaction_id, fee_minor, outcome
         FROM order_outcomes ORDER BY merchant_id, merchant_order_no`,
      ),
    ).toEqual([
      ['mo-a1', 'ISSUE', 'ord-a1', 'card-a', 'fee-a1', 200, 'completed'],
      ['mo-a2', 'DEPOSIT', 'ord-a2', 'card-a', 'fee-a2', 75, 'completed'],
      ['mo-a3', 'WITHDRAW', 'ord-a3', 'card-a', 'fee-a3', 0, 'completed'],
      ['mo-a4', 'DEPOSIT', 'ord-a4', 'card-a', 'fee-a4', 0, 'failed'],
      ['mo-b1', 'ISSUE', 'ord-b1', 'card-b', 'fee-b1', 200, 'completed'],
      ['mo-c1', 'ISSUE', 'ord-c1', 'card-c', 'fee-c1', 200, 'completed'],
      ['mo-c2', 'CANCEL', 'ord-c2', 'card-c', 'fee-c2', 0, 'completed'],
      ['mo-e1', 'ISSUE', 'ord-e1', 'card-e', 'fee-e1', 200, 'completed'],
      ['mo-e2', 'DEPOSIT', 'ord-e2', 'card-e', 'fee-e2', 15, 'completed'],
      ['mo-x1', 'ISSUE', null, null, null, null, 'rejected'],
      ['mo-x2', 'ISSUE', null, null, null, null, 'unlinkable'],
      ['mo-x3', 'DEPOSIT', 'ord-x3', null, null, null, 'awaiting_outcome'],
      ['mo-x4', 'TOPUP', null, null, null, null, 'topup'],
      ['mo-x5', 'WITHDRAW', null, null, null, null, 'not_accepted'],
      ['mo-j1', 'ISSUE', 'ord-j1', 'card-j', 'fee-j1', 500, 'completed'],
    ]);
  });

  it("shows the FEE record's currency beside the order's, which a CANCEL has not", () => {
    const mirror = temp.open();
    scenario(mirror);
    expect(
      table(
        mirror.db,
        `SELECT merchant_order_no, currency, fee_currency FROM order_outcomes
         WHERE merchant_order_no IN ('mo-c2', 'mo-j1', 'mo-x3') ORDER BY merchant_order_no`,
      ),
    ).toEqual([
      ['mo-c2', null, 'USD'],
      ['mo-j1', 'JPY', 'JPY'],
      ['mo-x3', 'USD', null],
    ]);
  });

  it("names an order whose FEE record is in quarantine, as ORDER_NOT_REFLECTED's reason does", () => {
    const mirror = temp.open();
    scenario(mirror);
    const quarantine = mirror.db.prepare(
      `INSERT INTO quarantine (merchant_id, resource, record_id, reason, raw_json, raw_sha256,
         first_seen_at, last_seen_at, last_run_id, resolved_at)
       VALUES (?, 'transactions', ?, 'amount: not a decimal', ?, ?, ?, ?, 'run-1', ?)`,
    );
    const fee = (tradeNo: string) => JSON.stringify({ type: 'FEE', tradeNo, amount: 'abc' });
    const outcomeOf = (no: string) =>
      mirror.db
        .prepare('SELECT outcome FROM order_outcomes WHERE merchant_order_no = ?')
        .pluck()
        .get(no);
    // Another merchant's, a resolved one and one naming another order leave it awaiting.
    quarantine.run('m-2', 'tx-q1', fee('ord-x3'), 'h1', READ, READ, null);
    quarantine.run('m-1', 'tx-q2', fee('ord-x3'), 'h2', READ, READ, READ);
    quarantine.run('m-1', 'tx-q3', fee('ord-zz'), 'h3', READ, READ, null);
    quarantine.run('m-1', 'tx-q4', '{"tradeNo": ', 'h4', READ, READ, null);
    expect(outcomeOf('mo-x3')).toBe('awaiting_outcome');

    quarantine.run('m-1', 'tx-q5', fee('ord-x3'), 'h5', READ, READ, null);
    expect(outcomeOf('mo-x3')).toBe('fee_quarantined');
    expect(outcomeOf('mo-a2')).toBe('completed');
  });

  it('awaits a FREEZE or UNFREEZE, which has no FEE record, only while ORDER_NOT_REFLECTED would', () => {
    const l = openLedger(temp);
    const offering = l.offering();
    const at = (hours: number) => shift(READ_AT, -hours * HOUR);
    // Frozen, then unfrozen, as ordered: both reflected.
    const spell = l.issue(offering);
    const spellFreeze = spell.switchTo('FREEZE', at(10));
    const spellUnfreeze = spell.switchTo('UNFREEZE', at(8));
    spell.write();
    // A FREEZE that took: the card is FROZEN.
    const frozen = l.issue(offering);
    const frozenFreeze = frozen.switchTo('FREEZE', at(6));
    frozen.write();
    // A FREEZE that never took: the card is still ACTIVE.
    const stuck = l.issue(offering);
    const stuckFreeze = stuck.switchTo('FREEZE', at(3), { reflected: false });
    stuck.write();
    // A lost FREEZE, then the card was cancelled.
    const cancelled = l.issue(offering);
    const cancelledFreeze = cancelled.switchTo('FREEZE', at(10), { reflected: false });
    cancelled.switchTo('CANCEL', at(9));
    cancelled.write();
    const outcomes = table(
      l.db,
      `SELECT merchant_order_no, outcome FROM order_outcomes
       WHERE kind IN ('FREEZE', 'UNFREEZE') ORDER BY submitted_at, merchant_order_no`,
    );
    expect(outcomes).toEqual([
      [spellFreeze.merchantOrderNo, 'reflected'],
      [cancelledFreeze.merchantOrderNo, 'reflected'],
      [spellUnfreeze.merchantOrderNo, 'reflected'],
      [frozenFreeze.merchantOrderNo, 'reflected'],
      [stuckFreeze.merchantOrderNo, 'awaiting_outcome'],
    ]);
    // Example 10 (orders the upstream has not settled) lists what the check reports, no more.
    const examples = statementsOf(readFileSync(join(SQL_DIR, 'examples.sql'), 'utf8'));
    const unsettled = l.db
      .prepare(examples[9] ?? '')
      .all()
      .map((row) => (row as { order_no: string }).order_no);
    const { findings } = runOn(l, ['ORDER_NOT_REFLECTED'], {
      cutoff: shift(READ_AT, -MINUTE),
    });
    expect(unsettled).toEqual(findings.map((f) => f.orderNo));
    expect(unsettled).toEqual([stuckFreeze.orderNo]);
  });

  it('takes a later FREEZE, UNFREEZE or CANCEL journaled without order_no as following, as ORDER_NOT_REFLECTED does', () => {
    const l = openLedger(temp);
    const offering = l.offering();
    const at = (hours: number) => shift(READ_AT, -hours * HOUR);
    // Frozen, then unfrozen by an UNFREEZE imported without its orderNo: the card is ACTIVE.
    const thawed = l.issue(offering);
    const thawedFreeze = thawed.switchTo('FREEZE', at(10));
    const thawedUnfreeze = l.order({
      kind: 'UNFREEZE',
      cardId: thawed.cardId,
      submittedAt: at(8),
      orderNo: null,
    });
    thawed.write({ status: 'ACTIVE' });
    // A FREEZE, then a CANCEL imported without its orderNo (no FEE record to link).
    const closed = l.issue(offering);
    const closedFreeze = closed.switchTo('FREEZE', at(6));
    const closedCancel = l.order({
      kind: 'CANCEL',
      cardId: closed.cardId,
      submittedAt: at(5),
      orderNo: null,
    });
    closed.write({ status: 'CANCELLED', balance: l.text(0n) });
    expect(
      table(
        l.db,
        `SELECT merchant_order_no, outcome FROM order_outcomes
         WHERE kind IN ('FREEZE', 'UNFREEZE', 'CANCEL') ORDER BY submitted_at, merchant_order_no`,
      ),
    ).toEqual([
      [thawedFreeze.merchantOrderNo, 'reflected'],
      [thawedUnfreeze.merchantOrderNo, 'unlinkable'],
      [closedFreeze.merchantOrderNo, 'reflected'],
      [closedCancel.merchantOrderNo, 'unlinkable'],
    ]);
    // Example 10 (orders the upstream has not settled) lists none, and the check reports none.
    const examples = statementsOf(readFileSync(join(SQL_DIR, 'examples.sql'), 'utf8'));
    expect(l.db.prepare(examples[9] ?? '').all()).toEqual([]);
    const { findings } = runOn(l, ['ORDER_NOT_REFLECTED'], { cutoff: shift(READ_AT, -MINUTE) });
    expect(findings).toEqual([]);
  });

  it('judges a FREEZE or UNFREEZE accepted without an order_no by its card, as ORDER_NOT_REFLECTED does', () => {
    const l = openLedger(temp);
    const offering = l.offering();
    const at = (hours: number) => shift(READ_AT, -hours * HOUR);
    const orderless = (kind: 'FREEZE' | 'UNFREEZE', cardId: string, hours: number) =>
      l.order({ kind, cardId, submittedAt: at(hours), orderNo: null, state: 'ACCEPTED' });
    // A FREEZE the upstream answered with a bare 2xx, carried out: the card is FROZEN.
    const held = l.issue(offering);
    const heldFreeze = orderless('FREEZE', held.cardId, 6);
    held.write({ status: 'FROZEN' });
    // Such a FREEZE that failed: the card is still ACTIVE.
    const failed = l.issue(offering);
    const failedFreeze = orderless('FREEZE', failed.cardId, 5);
    failed.write();
    // Such an UNFREEZE that failed: the card is still FROZEN.
    const stuck = l.issue(offering);
    stuck.switchTo('FREEZE', at(9));
    const stuckUnfreeze = orderless('UNFREEZE', stuck.cardId, 4);
    stuck.write();
    // One imported without its orderNo is not known to have been accepted.
    const imported = l.issue(offering);
    const importedFreeze = l.order({
      kind: 'FREEZE',
      cardId: imported.cardId,
      submittedAt: at(3),
      orderNo: null,
    });
    imported.write();
    const outcomeOf = (no: string) =>
      l.db
        .prepare('SELECT outcome FROM order_outcomes WHERE merchant_order_no = ?')
        .pluck()
        .get(no);
    expect(
      [heldFreeze, failedFreeze, stuckUnfreeze, importedFreeze].map((o) =>
        outcomeOf(o.merchantOrderNo),
      ),
    ).toEqual(['reflected', 'awaiting_outcome', 'awaiting_outcome', 'unlinkable']);
    // Example 10 (orders the upstream has not settled) lists what the check reports, no more.
    const examples = statementsOf(readFileSync(join(SQL_DIR, 'examples.sql'), 'utf8'));
    const unsettled = l.db
      .prepare(examples[9] ?? '')
      .all()
      .map((row) => (row as { merchant_order_no: string }).merchant_order_no);
    const { findings } = runOn(l, ['ORDER_NOT_REFLECTED'], { cutoff: shift(READ_AT, -MINUTE) });
    expect(unsettled).toEqual(findings.map((f) => f.merchantOrderNo));
    expect(unsettled).toEqual([failedFreeze.merchantOrderNo, stuckUnfreeze.merchantOrderNo]);
  });

  it('awaits a FREEZE a CANCEL that failed follows, as ORDER_NOT_REFLECTED reports it', () => {
    const l = openLedger(temp);
    const offering = l.offering();
    const at = (hours: number) => shift(READ_AT, -hours * HOUR);
    // A FREEZE that never took, then a CANCEL that failed (its FEE record DECLINED: the card
    // was blocked while it was pending, then unblocked): the card is still ACTIVE.
    const kept = l.issue(offering);
    const keptFreeze = kept.switchTo('FREEZE', at(6), { reflected: false });
    const failedCancel = kept.switchTo('CANCEL', at(5), { reflected: false });
    kept.settle(failedCancel.orderNo as string, at(5), 'DECLINED', l.text(0n));
    kept.write();
    // A FREEZE that never took, then a CANCEL that did: the card is CANCELLED.
    const closed = l.issue(offering);
    const closedFreeze = closed.switchTo('FREEZE', at(4), { reflected: false });
    closed.switchTo('CANCEL', at(3));
    closed.write();
    const outcomeOf = (no: string) =>
      l.db
        .prepare('SELECT outcome FROM order_outcomes WHERE merchant_order_no = ?')
        .pluck()
        .get(no);
    expect(
      [keptFreeze, failedCancel, closedFreeze].map((o) => outcomeOf(o.merchantOrderNo)),
    ).toEqual(['awaiting_outcome', 'failed', 'reflected']);
    // Example 10 (orders the upstream has not settled) lists what the check reports, no more.
    const examples = statementsOf(readFileSync(join(SQL_DIR, 'examples.sql'), 'utf8'));
    const unsettled = l.db
      .prepare(examples[9] ?? '')
      .all()
      .map((row) => (row as { order_no: string }).order_no);
    const { findings } = runOn(l, ['ORDER_NOT_REFLECTED'], { cutoff: shift(READ_AT, -MINUTE) });
    expect(unsettled).toEqual(findings.map((f) => f.orderNo));
    expect(unsettled).toEqual([keptFreeze.orderNo]);
  });

  it('takes the earliest FEE record when the upstream shows two for one order', () => {
    const mirror = temp.open();
    const writers = scenario(mirror);
    const duplicate: Tx = [
      'fee-a0',
      'card-a',
      'FEE',
      'COMPLETED',
      '2.00',
      '0.00',
      '03-01T09:05',
      'ord-a1',
    ];
    writers.transactions.write([tx(duplicate)], RUN1_TX);
    expect(
      table(mirror.db, "SELECT fee_transaction_id FROM order_outcomes WHERE order_no = 'ord-a1'"),
    ).toEqual([['fee-a1']]);
  });
});

describe('fees_by_offering_day', () => {
  it('sums the COMPLETED and SETTLED fees per offering, currency and UTC day', () => {
    const mirror = temp.open();
    scenario(mirror);
    expect(
      table(mirror.db, 'SELECT * FROM fees_by_offering_day ORDER BY merchant_id, day, offering_id'),
    ).toEqual([
      ['m-1', 'off-1', 'Virtual Visa', 'USD', '2026-03-01', 4, 800, '8.00', 0],
      ['m-1', 'off-1', 'Virtual Visa', 'USD', '2026-03-02', 3, 75, '0.75', 0],
      ['m-1', 'off-1', 'Virtual Visa', 'USD', '2026-03-03', 1, 15, '0.15', 0],
      ['m-1', 'off-2', 'Plastic Mastercard', 'USD', '2026-03-03', 2, 100, '1.00', 1],
      ['m-1', null, null, 'USD', '2026-03-04', 1, 50, '0.50', 0],
      ['m-2', 'off-jp', 'JPY Virtual', 'JPY', '2026-03-01', 1, 500, '500', 0],
    ]);
  });
});

describe('transactions_daily', () => {
  it('counts and sums per merchant, UTC day, type, status and currency', () => {
    const mirror = temp.open();
    scenario(mirror);
    expect(
      table(
        mirror.db,
        `SELECT * FROM transactions_daily
         WHERE (merchant_id = 'm-1' AND day = '2026-03-03' AND type = 'PURCHASE')
            OR merchant_id = 'm-2'
         ORDER BY merchant_id, day, type, status`,
      ),
    ).toEqual([
      ['m-1', '2026-03-03', 'PURCHASE', 'COMPLETED', 'USD', 4, 1800, '18.00', 10, '0.10', 1],
      ['m-1', '2026-03-03', 'PURCHASE', 'DECLINED', 'USD', 1, 700, '7.00', 0, '0.00', 0],
      ['m-1', '2026-03-03', 'PURCHASE', 'PENDING', 'USD', 1, 500, '5.00', 0, '0.00', 0],
      ['m-1', '2026-03-03', 'PURCHASE', 'SETTLED', 'USD', 1, 300, '3.00', 5, '0.05', 0],
      ['m-2', '2026-03-01', 'FEE', 'COMPLETED', 'JPY', 1, 500, '500', 0, '0', 0],
      ['m-2', '2026-03-02', 'PURCHASE', 'COMPLETED', 'JPY', 1, 1200, '1200', 0, '0', 0],
    ]);
    const total = mirror.db.prepare('SELECT sum(transaction_count) FROM transactions_daily');
    expect(total.pluck().get()).toBe(29);
  });
});

describe('latest_merchant_balance', () => {
  it('shows the newest snapshot per merchant and the change since the one before', () => {
    const mirror = temp.open();
    const writers = scenario(mirror);
    const balance = (amount: string, currency = 'USD') => ({ balance: amount, currency });
    writers.merchants.addBalance(balance('1000.00'), context('run-0', at('03-04T02:00')));
    writers.merchants.addBalance(balance('940.00'), RUN1_CARDS);
    writers.merchants.addBalance(balance('50000', 'JPY'), { ...RUN1_CARDS, merchantId: 'm-2' });
    expect(
      rows(mirror.db, 'SELECT * FROM latest_merchant_balance ORDER BY merchant_id'),
    ).toMatchObject([
      {
        merchant_id: 'm-1',
        currency: 'USD',
        balance: '940.00',
        balance_minor: 94000,
        observed_at: READ,
        run_id: 'run-1',
        previous_balance: '1000.00',
        previous_balance_minor: 100000,
        previous_observed_at: at('03-04T02:00'),
        change_minor: -6000,
        change: '-60.00',
        snapshots: 2,
      },
      {
        merchant_id: 'm-2',
        currency: 'JPY',
        balance: '50000',
        balance_minor: 50000,
        previous_balance: null,
        previous_balance_minor: null,
        previous_observed_at: null,
        change_minor: null,
        change: null,
        snapshots: 1,
      },
    ]);
  });

  it('prints minor units as the exact decimal text of src/money, whatever the exponent and sign', () => {
    const mirror = temp.open();
    const writers = createMirrorWriters(mirror.db);
    const cases: [string, string, string, string][] = [
      ['USD', '0.00', '0.07', '0.07'],
      ['USD', '100.00', '99.95', '-0.05'],
      ['USD', '5.00', '5.00', '0.00'],
      ['USD', '0.10', '1234567.89', '1234567.79'],
      ['JPY', '1000', '0', '-1000'],
      ['KRW', '5', '12', '7'],
      ['KWD', '1.000', '0.995', '-0.005'],
      ['KWD', '0.001', '12.345', '12.344'],
      ['BHD', '2.500', '0.000', '-2.500'],
      ['EUR', '-3.00', '1.01', '4.01'],
    ];
    cases.forEach(([currency, before, after], index) => {
      const merchantId = `fmt-${index}`;
      const balance = (amount: string) => ({ balance: amount, currency });
      writers.merchants.addBalance(balance(before), context('r-0', at('03-04T02:00'), merchantId));
      writers.merchants.addBalance(balance(after), context('r-1', READ, merchantId));
    });
    const shown = table(
      mirror.db,
      'SELECT currency, change_minor, change FROM latest_merchant_balance ORDER BY merchant_id',
    ) as [string, number, string][];
    expect(shown.map(([, , change]) => change)).toEqual(cases.map(([, , , change]) => change));
    for (const [currency, minor, change] of shown) expect(change).toBe(moneyText(minor, currency));
  });
});

interface FindingInput {
  fingerprint: string;
  state?: string;
  check?: string;
  severity?: string;
  expected?: string | null;
  actual?: string | null;
  lastSeenRunId?: string;
  ack?: { until: string; expected: string | null; actual: string | null };
}

function insertFinding(db: SqliteDatabase, f: FindingInput): void {
  const resolved = f.state === 'resolved';
  db.prepare(
    `INSERT INTO findings (fingerprint, check_code, severity, merchant_id, card_id, currency,
       expected, actual, detail, state, first_seen_at, first_seen_run_id, last_seen_at,
       last_seen_run_id, resolved_at, resolved_run_id, ack_reason, ack_until, ack_at,
       ack_expected, ack_actual)
     VALUES (@fingerprint, @check, @severity, 'm-1', 'card-b', 'USD', @expected, @actual,
       'detail', @state, @firstSeen, 'rc-1', @lastSeen, @lastSeenRunId, @resolvedAt,
       @resolvedRunId, @ackReason, @ackUntil, @ackAt, @ackExpected, @ackActual)`,
  ).run({
    fingerprint: f.fingerprint,
    check: f.check ?? 'CARD_BALANCE_MISMATCH',
    severity: f.severity ?? 'error',
    expected: f.expected === undefined ? '18.00' : f.expected,
    actual: f.actual === undefined ? '17.50' : f.actual,
    state: f.state ?? 'new',
    firstSeen: at('03-04T03:00'),
    lastSeen: at('03-05T03:00'),
    lastSeenRunId: f.lastSeenRunId ?? 'rc-2',
    resolvedAt: resolved ? at('03-05T03:00') : null,
    resolvedRunId: resolved ? 'rc-2' : null,
    ackReason: f.ack ? 'known bank fee' : null,
    ackUntil: f.ack?.until ?? null,
    ackAt: f.ack ? at('03-05T04:00') : null,
    ackExpected: f.ack ? f.ack.expected : null,
    ackActual: f.ack ? f.ack.actual : null,
  });
}

describe('open_findings', () => {
  it('lists the findings that hold, with the state of their acknowledgement', () => {
    const mirror = temp.open();
    const recon = mirror.db.prepare(
      `INSERT INTO recon_runs (run_id, reconciled_at, merchants, coverage, current_count,
         new_count, resolved_count, acknowledged_count) VALUES (?, ?, '[]', '[]', 0, 0, 0, 0)`,
    );
    recon.run('rc-1', at('03-04T03:00'));
    recon.run('rc-2', at('03-05T03:00'));
    const future = '2999-01-01T00:00:00.000Z';
    insertFinding(mirror.db, { fingerprint: 'f-new' });
    insertFinding(mirror.db, {
      fingerprint: 'f-acked',
      state: 'persisting',
      check: 'UNJOURNALED_CARD',
      severity: 'info',
      expected: null,
      actual: null,
      ack: { until: future, expected: null, actual: null },
    });
    insertFinding(mirror.db, {
      fingerprint: 'f-expired',
      state: 'persisting',
      severity: 'warning',
      ack: { until: '2020-01-01T00:00:00.000Z', expected: '18.00', actual: '17.50' },
    });
    insertFinding(mirror.db, {
      fingerprint: 'f-changed',
      state: 'persisting',
      lastSeenRunId: 'rc-1',
      ack: { until: future, expected: '18.00', actual: '17.00' },
    });
    insertFinding(mirror.db, { fingerprint: 'f-resolved', state: 'resolved' });
    expect(
      table(
        mirror.db,
        `SELECT fingerprint, severity_rank, state, ack_state, in_main_report,
                in_latest_reconciliation
         FROM open_findings ORDER BY fingerprint`,
      ),
    ).toEqual([
      ['f-acked', 3, 'persisting', 'acknowledged', 0, 1],
      ['f-changed', 1, 'persisting', 'changed', 1, 0],
      ['f-expired', 2, 'persisting', 'expired', 1, 1],
      ['f-new', 1, 'new', 'none', 1, 1],
    ]);
  });

  it('follows what the reconciliation records: acknowledged, then resolved', () => {
    const mirror = temp.open();
    const writers = scenario(mirror);
    const checks = [cardBalanceMismatch, unjournaledCard];
    const reconcile = (runId: string, time: string) =>
      recordReconciliation(mirror.db, {
        runId,
        at: at(time),
        results: runChecks(mirror.db, { checks }),
      });
    const open = () =>
      table(
        mirror.db,
        `SELECT check_code, card_id, state, ack_state, expected, actual, delta
         FROM open_findings ORDER BY check_code, card_id`,
      );

    const first = reconcile('rc-1', '03-05T03:00');
    const unjournaled = first.current.find((f) => f.check === 'UNJOURNALED_CARD');
    if (!unjournaled) throw new Error('the scenario has an unjournaled card');
    ackFinding(mirror.db, unjournaled.fingerprint, {
      reason: 'issued by the old platform',
      until: '2999-01-01T00:00:00.000Z',
      now: at('03-05T04:00'),
    });
    expect(open()).toEqual([
      ['CARD_BALANCE_MISMATCH', 'card-b', 'new', 'none', '18.00', '17.50', '-0.50'],
      ['UNJOURNALED_CARD', 'card-d', 'new', 'acknowledged', null, null, null],
    ]);

    writers.cards.write([card('card-b', 'off-1', 'ACTIVE', '18.00')], RUN1_CARDS);
    reconcile('rc-2', '03-06T03:00');
    expect(open()).toEqual([
      ['UNJOURNALED_CARD', 'card-d', 'persisting', 'acknowledged', null, null, null],
    ]);
  });

  it('takes the reconciliation recorded last as the newest, though the host clock was set back before it', () => {
    const mirror = temp.open();
    scenario(mirror);
    const reconcile = (runId: string, time: string, checks: Check[]) =>
      recordReconciliation(mirror.db, {
        runId,
        at: at(time),
        results: runChecks(mirror.db, { checks }),
      });
    // The host's clock was a day ahead at the first reconciliation; NTP set it back before the
    // second, which ran one check only.
    reconcile('rc-ahead', '03-06T03:00', [cardBalanceMismatch]);
    reconcile('rc-after', '03-05T03:00', [unjournaledCard]);
    expect(
      table(
        mirror.db,
        `SELECT check_code, last_seen_run_id, in_latest_reconciliation
         FROM open_findings ORDER BY check_code`,
      ),
    ).toEqual([
      ['CARD_BALANCE_MISMATCH', 'rc-ahead', 0],
      ['UNJOURNALED_CARD', 'rc-after', 1],
    ]);
  });

  it('counts a finding the newest reconciliation kept open (its record skipped) as in it', () => {
    const l = openLedger(temp);
    const skewed = l.issue(l.offering(), { amount: '100.00' });
    skewed.write({ balance: '99.00' });
    l.synced(HISTORY_AT, shift(READ_AT, -MINUTE), shift(READ_AT, MINUTE));
    const night = (runId: string, days: number) =>
      recordReconciliation(l.db, {
        runId,
        at: shift(READ_AT, days * DAY + HOUR),
        results: runChecks(l.db, { checks: [cardBalanceMismatch] }),
      });
    night('rc-1', 0);
    // The next night reads the balance after the last fully synced transaction: the card is
    // skipped, and its finding is kept open and reported again (discrepancies.csv).
    skewed.write({ balance: '99.00' }, shift(READ_AT, DAY));
    const second = night('rc-2', 1);
    expect(second.current.map((f) => [f.cardId, f.lastSeenRunId])).toEqual([
      [skewed.cardId, 'rc-1'],
    ]);
    expect(
      table(l.db, 'SELECT card_id, last_seen_run_id, in_latest_reconciliation FROM open_findings'),
    ).toEqual([[skewed.cardId, 'rc-1', 1]]);
  });
});

describe('012_findings_minor_units', () => {
  /** [check, currency, expected, actual, delta, and the minor units each should get]. */
  type Case = [
    string,
    string | null,
    string | null,
    string | null,
    string | null,
    number | null,
    number | null,
    number | null,
  ];
  const CASES: Case[] = [
    ['CARD_BALANCE_MISMATCH', 'USD', '18.00', '17.50', '-0.50', 1800, 1750, -50],
    ['CARD_BALANCE_MISMATCH', 'KWD', '1.000', '0.995', '-0.005', 1000, 995, -5],
    ['MERCHANT_BALANCE_MISMATCH', 'JPY', '1000', '990', '-10', 1000, 990, -10],
    ['ISSUANCE_FEE_MISMATCH', 'USD', '2.00', '2.50', '0.50', 200, 250, 50],
    ['DEPOSIT_FEE_MISMATCH', 'BHD', '0.150', '0.000', '-0.150', 150, 0, -150],
    ['WITHDRAWAL_FEE_MISMATCH', 'USD', '0.00', '1.00', '1.00', 0, 100, 100],
    ['LOAD_OUT_OF_BOUNDS', 'USD', '10.00', '9.99', '-0.01', 1000, 999, -1],
    ['OVER_REFUND', 'EUR', '5.00', '7.50', '2.50', 500, 750, 250],
    // The upstream's text as sent: fewer fractional digits, leading zeros, a minus zero.
    ['NEGATIVE_BALANCE', 'USD', null, '-5.5', null, null, -550, null],
    ['STALE_PENDING', 'USD', null, '0012.5', null, null, 1250, null],
    ['DUPLICATE_TRANSACTION', 'USD', null, '-0', null, null, 0, null],
    ['ACTIVITY_ON_INACTIVE_CARD', 'KRW', null, '000000000000000000001', null, null, 1, null],
    // The largest amount minor units hold exactly (2^53 - 1), and one past it.
    [
      'CARD_BALANCE_MISMATCH',
      'JPY',
      '9007199254740991',
      '-9007199254740991',
      '9007199254740992',
      9007199254740991,
      -9007199254740991,
      null,
    ],
    [
      'CARD_BALANCE_MISMATCH',
      'USD',
      '90071992547409.91',
      '90071992547409.92',
      '1.00',
      9007199254740991,
      null,
      100,
    ],
    // Text that is no amount of its currency: too precise, not a plain decimal, no currency.
    ['CARD_BALANCE_MISMATCH', 'USD', '1.500', '1e3', '.5', null, null, null],
    ['CARD_BALANCE_MISMATCH', 'USD', '5.', '+5', ' 5', null, null, null],
    ['CARD_BALANCE_MISMATCH', 'USD', '1.2.3', '--5', '', null, null, null],
    ['CARD_BALANCE_MISMATCH', 'XYZ', '1.00', '2.00', '1.00', null, null, null],
    ['CARD_BALANCE_MISMATCH', null, '1.00', '2.00', '1.00', null, null, null],
    // Checks whose values are no amounts: a status, a currency, a too precise amount.
    ['ORDER_NOT_REFLECTED', null, 'FROZEN', 'ACTIVE', null, null, null, null],
    ['ORDER_NOT_REFLECTED', 'USD', '5', '5.00', null, null, null, null],
    ['CURRENCY_MISMATCH', 'USD', 'USD', 'EUR', null, null, null, null],
    ['PRECISION_VIOLATION', 'USD', null, '1.005', null, null, null, null],
    ['PRECISION_VIOLATION', 'JPY', null, '12', null, null, null, null],
    ['UNJOURNALED_CARD', 'USD', null, null, null, null, null, null],
    ['ORPHAN_TRANSACTION', 'USD', null, null, null, null, null, null],
  ];

  it('fills in the minor units of the money findings of a version-11 file, resolved ones too', () => {
    const file = join(temp.dir(), 'v11.sqlite');
    const raw = new Database(file);
    migrateMirror(raw, readMigrations().slice(0, 11));
    const insert = raw.prepare(
      `INSERT INTO findings (fingerprint, check_code, severity, merchant_id, currency, expected,
         actual, delta, detail, state, first_seen_at, first_seen_run_id, last_seen_at,
         last_seen_run_id)
       VALUES (?, ?, 'error', 'm-1', ?, ?, ?, ?, 'detail', ?, ?, 'rc-1', ?, 'rc-1')`,
    );
    CASES.forEach(([check, currency, expected, actual, delta], index) => {
      const state = index % 2 === 0 ? 'new' : 'resolved';
      const seen = at('03-04T03:00');
      insert.run(`f-${index}`, check, currency, expected, actual, delta, state, seen, seen);
    });
    // One finding of each check with values that read as amounts: only the checks that report
    // amounts get minor units, as the reconciliation's own rule says.
    for (const check of CHECK_CODES) {
      const seen = at('03-04T03:00');
      insert.run(`g-${check}`, check, 'USD', '5.00', '5', '-0.25', 'new', seen, seen);
    }
    raw.close();

    const mirror = openMirror(file);
    temp.defer(() => mirror.close());
    expect(mirror.migration.applied).toEqual([
      '012_findings_minor_units',
      '013_pending_reports',
      '014_exact_view_sums',
      '015_vanished_transactions',
      '016_balance_check_as_the_check',
      '017_order_outcomes_unlinked_switches',
      '018_offering_previous_seen',
      '019_sync_freshness_every_attempt',
      '020_order_outcomes_fee_quarantined',
      '021_card_secrets_out_of_old_rows',
      '022_sync_freshness_latest_recorded',
      '023_open_findings_latest_recorded',
      '024_order_outcomes_orderless_switches',
      '025_offering_previous_seen_backfill',
    ]);
    const kept = table(
      mirror.db,
      `SELECT check_code, currency, expected, actual, delta, expected_minor, actual_minor,
              delta_minor
       FROM findings WHERE fingerprint LIKE 'f-%' ORDER BY CAST(substr(fingerprint, 3) AS INTEGER)`,
    );
    expect(kept).toEqual(CASES);
    const byRule = ([check, currency, expected, actual, delta]: unknown[]) => {
      const minor = findingMinor({
        check: check as CheckCode,
        currency: currency as string | null,
        expected: expected as string | null,
        actual: actual as string | null,
        delta: delta as string | null,
      });
      return [check, currency, expected, actual, delta, ...Object.values(minor)];
    };
    expect(kept.map(byRule)).toEqual(CASES);
    const each = table(
      mirror.db,
      `SELECT check_code, currency, expected, actual, delta, expected_minor, actual_minor,
              delta_minor
       FROM findings WHERE fingerprint LIKE 'g-%' ORDER BY check_code`,
    );
    expect(each.map(byRule)).toEqual(each);
    expect(
      each.filter((row) => row[5] !== null).map((row) => row.slice(0, 1).concat(row.slice(5))),
    ).toEqual(
      CHECK_CODES.filter((check) => REPORTS_AMOUNTS[check])
        .sort()
        .map((check) => [check, 500, 500, -25]),
    );
  });

  it("shows each open finding's minor units in open_findings", () => {
    const mirror = temp.open();
    scenario(mirror);
    recordReconciliation(mirror.db, {
      runId: 'rc-1',
      at: at('03-05T03:00'),
      results: runChecks(mirror.db, { checks: [cardBalanceMismatch, unjournaledCard] }),
    });
    expect(
      table(
        mirror.db,
        `SELECT check_code, card_id, expected, expected_minor, actual, actual_minor, delta,
                delta_minor
         FROM open_findings ORDER BY check_code, card_id`,
      ),
    ).toEqual([
      ['CARD_BALANCE_MISMATCH', 'card-b', '18.00', 1800, '17.50', 1750, '-0.50', -50],
      ['UNJOURNALED_CARD', 'card-d', null, null, null, null, null, null],
    ]);
    const examples = statementsOf(readFileSync(join(SQL_DIR, 'examples.sql'), 'utf8'));
    expect(mirror.db.prepare(examples[23] ?? '').all()).toEqual([
      {
        merchant_id: 'm-1',
        check_code: 'CARD_BALANCE_MISMATCH',
        currency: 'USD',
        findings: 1,
        delta_minor: -50,
        delta: '-0.50',
      },
    ]);
  });

  it('does its arithmetic in integers: no REAL, float literal or julianday in the SQL', () => {
    const file = readFileSync(join(SQL_DIR, '012_findings_minor_units.sql'), 'utf8');
    const code = file.replace(/--.*$/gm, '');
    expect(code).not.toMatch(/\bREAL\b|\bFLOAT\b|\bDOUBLE\b|julianday|\btotal\(|\bavg\(|\d\.\d/i);
  });
});

describe('sync_freshness', () => {
  it('shows per merchant when each part was last read and how its last run ended', () => {
    const mirror = temp.open();
    const writers = scenario(mirror);
    writers.merchants.addBalance({ balance: '940.00', currency: 'USD' }, RUN1_CARDS);
    const run = (
      runId: string,
      command: string,
      day: string,
      outcome: 'done' | 'incomplete' | 'failed',
      summary: unknown = {},
    ) => {
      writers.runs.start({ runId, command, startedAt: at(`${day}T01:59`), pid: 1, host: 'h' });
      const finishedAt = at(`${day}T02:30`);
      writers.runs.finish({
        runId,
        finishedAt,
        outcome,
        exitCode: { done: 0, incomplete: 4, failed: 3 }[outcome],
        summary,
      });
    };
    run('run-1', 'run', '03-05', 'done');
    run('run-2', 'sync', '03-06', 'incomplete');
    const window = (runId: string, merchantId: string) =>
      writers.runs.addWindow({
        runId,
        merchantId,
        kind: 'history',
        startAt: at('03-01T00:00'),
        endAt: READ,
        filter: null,
        expected: 1,
        fetched: 1,
        upserted: 1,
        attempts: 1,
        durationMs: 5,
        outcome: 'done',
        finishedAt: at('03-05T02:20'),
      });
    window('run-1', 'm-1');
    window('run-1', 'm-2');
    window('run-2', 'm-2');
    const range = (start: string, end: string) => ({
      start: Date.parse(at(start)),
      end: Date.parse(at(end)),
    });
    writers.progress.replace('m-1', [range('03-01T00:00', '03-05T02:00')]);
    writers.progress.replace('m-2', [
      range('03-01T00:00', '03-02T00:00'),
      range('03-03T00:00', '03-04T00:00'),
    ]);
    mirror.db
      .prepare(
        `INSERT INTO quarantine (merchant_id, resource, record_id, reason, raw_json, raw_sha256,
           first_seen_at, last_seen_at, last_run_id)
         VALUES ('m-1', 'transactions', 'tx-bad', 'amount: not a decimal', '{}', 'abc', ?, ?, 'run-1')`,
      )
      .run(READ, READ);
    expect(
      table(
        mirror.db,
        `SELECT merchant_id, source, currency, cards, cards_read_at, transactions_synced_to,
                synced_ranges, balance_read_at, quarantined
         FROM sync_freshness ORDER BY merchant_id`,
      ),
    ).toEqual([
      ['m-1', 'main', 'USD', 5, READ, READ, 1, READ, 1],
      ['m-2', 'japan', 'JPY', 1, READ, at('03-04T00:00'), 2, null, 0],
    ]);
    expect(
      table(
        mirror.db,
        `SELECT merchant_id, last_run_id, last_run_command, last_run_outcome, last_run_started_at,
                last_run_finished_at, last_reconciled_at
         FROM sync_freshness ORDER BY merchant_id`,
      ),
    ).toEqual([
      ['m-1', 'run-1', 'run', 'done', at('03-05T01:59'), at('03-05T02:30'), null],
      ['m-2', 'run-2', 'sync', 'incomplete', at('03-06T01:59'), at('03-06T02:30'), null],
    ]);
  });

  it("names a run that tried a merchant and wrote no window of it, with that merchant's own outcome", () => {
    const mirror = temp.open();
    const writers = scenario(mirror);
    const refused = { code: 'UPSTREAM_UNAUTHORIZED', message: 'cards: listCards: 401' };
    writers.runs.start({ runId: 'run-1', command: 'run', startedAt: READ, pid: 1, host: 'h' });
    // The upstream refused japan's key before the run learnt its merchant id (sync-result.ts):
    // its result names it by its configured name only. The run wrote no window at all.
    writers.runs.finish({
      runId: 'run-1',
      finishedAt: at('03-05T02:30'),
      outcome: 'failed',
      exitCode: 3,
      summary: [
        { source: 'main', merchantId: 'm-1', outcome: 'done', error: null },
        { source: 'japan', merchantId: null, outcome: 'unauthorized', error: refused },
      ],
    });
    expect(
      table(
        mirror.db,
        `SELECT merchant_id, last_run_id, last_run_outcome, last_run_merchant_outcome,
                last_run_merchant_error
         FROM sync_freshness ORDER BY merchant_id`,
      ),
    ).toEqual([
      ['m-1', 'run-1', 'failed', 'done', null],
      ['m-2', 'run-1', 'failed', 'unauthorized', 'UPSTREAM_UNAUTHORIZED: cards: listCards: 401'],
    ]);

    // A run still going has no summary yet: its windows name it, with no outcome of its own.
    writers.runs.start({
      runId: 'run-2',
      command: 'run',
      startedAt: RUN2_TX.observedAt,
      pid: 1,
      host: 'h',
    });
    writers.runs.addWindow({
      runId: 'run-2',
      merchantId: 'm-1',
      kind: 'history',
      startAt: READ,
      endAt: RUN2_TX.observedAt,
      filter: null,
      expected: 0,
      fetched: 0,
      upserted: 0,
      attempts: 1,
      durationMs: 5,
      outcome: 'done',
      finishedAt: RUN2_TX.observedAt,
    });
    expect(
      table(
        mirror.db,
        `SELECT merchant_id, last_run_id, last_run_outcome, last_run_merchant_outcome
         FROM sync_freshness ORDER BY merchant_id`,
      ),
    ).toEqual([
      ['m-1', 'run-2', 'running', null],
      ['m-2', 'run-1', 'failed', 'unauthorized'],
    ]);
  });
});

describe('sync_freshness after the host clock was set back', () => {
  it('names the run recorded last, not the one the host stamped latest while its clock was ahead', () => {
    const mirror = temp.open();
    const writers = scenario(mirror);
    const run = (runId: string, startedAt: string, outcome: 'done' | 'incomplete') => {
      writers.runs.start({ runId, command: 'run', startedAt, pid: 1, host: 'h' });
      writers.runs.addWindow({
        runId,
        merchantId: 'm-1',
        kind: 'history',
        startAt: at('03-01T00:00'),
        endAt: READ,
        filter: null,
        expected: 1,
        fetched: 1,
        upserted: 1,
        attempts: 1,
        durationMs: 5,
        outcome: 'done',
        finishedAt: startedAt,
      });
      writers.runs.finish({
        runId,
        finishedAt: startedAt,
        outcome,
        exitCode: outcome === 'done' ? 0 : 4,
        summary: [{ source: 'main', merchantId: 'm-1', outcome, error: null }],
      });
    };
    // The host's clock was a day ahead on the first night; NTP set it back before the second.
    run('run-ahead', at('03-06T02:00'), 'done');
    run('run-after', at('03-05T02:00'), 'incomplete');
    expect(
      table(
        mirror.db,
        `SELECT merchant_id, last_run_id, last_run_outcome, last_run_merchant_outcome
         FROM sync_freshness WHERE merchant_id = 'm-1'`,
      ),
    ).toEqual([['m-1', 'run-after', 'incomplete', 'incomplete']]);
  });
});

describe('sync_freshness, a configured name given to another account', () => {
  it('names a run that refused the name before learning its id for the merchant the name read last, not every merchant it ever read', () => {
    const mirror = temp.open();
    const writers = scenario(mirror);
    // `main` read m-0 until the account was replaced; it has read m-1 since (scenario: at READ).
    const before = at('03-01T02:00');
    writers.merchants.upsertMerchant(
      { merchantId: 'm-0', source: 'main', baseUrl: 'https://issuer.test' },
      before,
      'USD',
    );
    const run = (runId: string, startedAt: string, summary: unknown[]) => {
      writers.runs.start({ runId, command: 'run', startedAt, pid: 1, host: 'h' });
      writers.runs.finish({ runId, finishedAt: startedAt, outcome: 'done', exitCode: 0, summary });
    };
    run('run-0', before, [{ source: 'main', merchantId: 'm-0', outcome: 'done', error: null }]);
    const refused = { code: 'UPSTREAM_UNAUTHORIZED', message: 'cards: listCards: 401' };
    run('run-1', at('03-06T02:00'), [
      { source: 'main', merchantId: null, outcome: 'unauthorized', error: refused },
    ]);
    expect(
      table(
        mirror.db,
        `SELECT merchant_id, last_run_id, last_run_merchant_outcome
         FROM sync_freshness WHERE source = 'main' ORDER BY merchant_id`,
      ),
    ).toEqual([
      // Before: m-0 too named run-1, 'unauthorized', a run that never read it.
      ['m-0', 'run-0', 'done'],
      ['m-1', 'run-1', 'unauthorized'],
    ]);
  });
});

describe('sql/examples.sql', () => {
  it('runs every example, read-only, against a mirror with data', () => {
    const mirror = temp.open();
    const writers = scenario(mirror);
    writers.merchants.addBalance({ balance: '940.00', currency: 'USD' }, RUN1_CARDS);
    const text = readFileSync(join(SQL_DIR, 'examples.sql'), 'utf8');
    const statements = statementsOf(text);
    expect(statements).toHaveLength(text.match(/^-- \d+\. /gm)?.length ?? -1);

    const reader = new Database(mirror.file, { readonly: true, fileMustExist: true });
    temp.defer(() => reader.close());
    for (const sql of statements) {
      const statement = reader.prepare(sql);
      expect({ sql, reader: statement.reader, readonly: statement.readonly }).toEqual({
        sql,
        reader: true,
        readonly: true,
      });
      expect(() => statement.all()).not.toThrow();
    }
    const mismatches = reader.prepare(statements[4] ?? '').all();
    expect(mismatches).toMatchObject([{ card_id: 'card-b', difference: '-0.50' }]);
  });

  it('prints a month whose fees sum below zero with its sign (example 8): -0.50, not 0.50', () => {
    const mirror = temp.open();
    const writers = scenario(mirror);
    // The month's fees of off-1 are 8.90; a fee returned in full, and 9.40 more, brings it to -0.50.
    writers.transactions.write(
      [tx(['fee-back', 'card-a', 'FEE', 'COMPLETED', '-9.40', '0.00', '03-04T09:00', 'ord-back'])],
      RUN2_TX,
    );
    const examples = statementsOf(readFileSync(join(SQL_DIR, 'examples.sql'), 'utf8'));
    const months = mirror.db.prepare(examples[7] ?? '').all() as {
      offering_id: string;
      fees_minor: number;
      fees: string;
    }[];
    expect(months.map((m) => [m.offering_id, m.fees_minor, m.fees])).toContainEqual([
      'off-1',
      -50,
      '-0.50',
    ]);
  });

  it('lists the top merchant names of each currency (example 17), not only of the first one', () => {
    const mirror = temp.open();
    const writers = createMirrorWriters(mirror.db);
    const purchase = (id: string, shop: string, amount: string, currency: string) => ({
      ...tx([id, 'card-x', 'PURCHASE', 'SETTLED', amount, '0', '03-03T08:00'], currency),
      merchantName: shop,
    });
    const shops = Array.from({ length: 20 }, (_, i) => `Shop ${String(i + 1).padStart(2, '0')}`);
    writers.transactions.write(
      shops.map((shop, i) => purchase(`jp-${i}`, shop, String(1000 + i), 'JPY')),
      { ...RUN1_TX, merchantId: 'm-2' },
    );
    writers.transactions.write([purchase('us-1', 'Corner Shop', '12.50', 'USD')], RUN1_TX);
    const examples = statementsOf(readFileSync(join(SQL_DIR, 'examples.sql'), 'utf8'));
    const top = table(mirror.db, examples[16] ?? '');
    expect(top.filter(([currency]) => currency === 'JPY')).toHaveLength(20);
    expect(top.filter(([currency]) => currency === 'USD')).toEqual([
      ['USD', 'Corner Shop', 1, 1250, 0],
    ]);
  });
});

describe('sums past the range of SQLite integers (2^63 minor units)', () => {
  it('leave the card or group they concern without a sum, and fail no query of the others', () => {
    // 1,025 refunds of 2^53 - 1 cents, each a valid amount: SQLite's sum() throws past 2^63 - 1.
    const l = openLedger(temp);
    const big = l.issue(l.offering(), { amount: '500.00' });
    big.activities(
      Array.from({ length: 1025 }, () => ({
        type: 'REFUND' as const,
        amount: '90071992547409.91',
        createdAt: shift(HISTORY_AT, DAY),
      })),
    );
    big.write({ balance: '1.00' });
    const other = l.issue(l.offering(), { amount: '500.00' });
    other.write({ balance: '497.00' });
    expect(
      table(
        l.db,
        `SELECT card_id, transactions_counted, transactions_minor, expected_minor, expected,
                difference_minor, difference, check_result, unchecked_reason
         FROM card_balance_check ORDER BY card_id`,
      ),
    ).toEqual([
      [
        big.cardId,
        1026,
        null,
        null,
        null,
        null,
        null,
        'unchecked',
        "the ledger passes SQLite's integer range (2^63 minor units): sum card_ledger's effect_minor in two parts (docs/analysts.md)",
      ],
      [other.cardId, 1, -200, 49800, '498.00', -100, '-1.00', 'mismatch', null],
    ]);
    expect(
      table(
        l.db,
        `SELECT type, transaction_count, amount_minor, amount, fee_minor, fee
         FROM transactions_daily ORDER BY type`,
      ),
    ).toEqual([
      ['FEE', 2, 400, '4.00', 0, '0.00'],
      ['REFUND', 1025, null, null, 0, '0.00'],
    ]);
  });
});
