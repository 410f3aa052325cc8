import { describe, expect, it } from 'vitest';
import { MerchantWriter } from '../../src/mirror/merchant-writer.js';
import { context, merchantBalance, useTempMirrors } from './mirror-fixtures.js';

const temp = useTempMirrors();

const MERCHANT = { merchantId: 'm-1', source: 'main', baseUrl: 'https://issuer.example' };

function setup() {
  const mirror = temp.open();
  return { db: mirror.db, writer: new MerchantWriter(mirror.db) };
}

describe('MerchantWriter', () => {
  it('inserts a merchant, then refreshes source and URL while keeping first_seen_at', () => {
    const { db, writer } = setup();
    writer.upsertMerchant(MERCHANT, '2026-02-01T02:00:00.000Z', 'USD');
    writer.upsertMerchant(
      { ...MERCHANT, source: 'renamed', baseUrl: 'https://new.example' },
      '2026-02-02T02:00:00.000Z',
      'USD',
    );
    expect(db.prepare('SELECT * FROM merchants').all()).toEqual([
      {
        merchant_id: 'm-1',
        source: 'renamed',
        base_url: 'https://new.example',
        currency: 'USD',
        first_seen_at: '2026-02-01T02:00:00.000Z',
        updated_at: '2026-02-02T02:00:00.000Z',
      },
    ]);
  });

  it('keeps the known currency when a later upsert does not give one', () => {
    const { db, writer } = setup();
    writer.upsertMerchant(MERCHANT, '2026-02-01T02:00:00.000Z', 'EUR');
    writer.upsertMerchant(MERCHANT, '2026-02-02T02:00:00.000Z');
    expect(db.prepare('SELECT currency FROM merchants').pluck().get()).toBe('EUR');
  });

  it('learns the currency on a later upsert when the first had none', () => {
    const { db, writer } = setup();
    writer.upsertMerchant(MERCHANT, '2026-02-01T02:00:00.000Z');
    expect(db.prepare('SELECT currency FROM merchants').pluck().get()).toBeNull();
    writer.upsertMerchant(MERCHANT, '2026-02-02T02:00:00.000Z', 'JPY');
    expect(db.prepare('SELECT currency FROM merchants').pluck().get()).toBe('JPY');
  });

  it('appends one balance snapshot per read, with its run, time and minor units', () => {
    const { db, writer } = setup();
    writer.addBalance(merchantBalance(), context('run-1', '2026-02-01T02:00:00.000Z'));
    writer.addBalance(merchantBalance(), context('run-2', '2026-02-02T02:00:00.000Z'));
    writer.addBalance(
      merchantBalance({ balance: '-5.25' }),
      context('run-3', '2026-02-03T02:00:00.000Z'),
    );
    const rows = db
      .prepare(
        'SELECT merchant_id, run_id, balance, balance_minor, currency, observed_at FROM merchant_balances ORDER BY snapshot_id',
      )
      .all();
    expect(rows).toEqual([
      {
        merchant_id: 'm-1',
        run_id: 'run-1',
        balance: '1000.00',
        balance_minor: 100_000,
        currency: 'USD',
        observed_at: '2026-02-01T02:00:00.000Z',
      },
      expect.objectContaining({ run_id: 'run-2', balance: '1000.00' }),
      expect.objectContaining({ run_id: 'run-3', balance: '-5.25', balance_minor: -525 }),
    ]);
  });

  it('records a missing card once and overwrites the answer when asked again', () => {
    const { db, writer } = setup();
    writer.recordMissingCard('card-x', 'not_found', context('run-1', '2026-02-01T02:00:00.000Z'));
    writer.recordMissingCard('card-x', 'found', context('run-2', '2026-02-02T02:00:00.000Z'));
    writer.recordMissingCard('card-y', 'not_found', context('run-2', '2026-02-02T02:00:00.000Z'));
    expect(db.prepare('SELECT * FROM missing_cards ORDER BY card_id').all()).toEqual([
      {
        card_id: 'card-x',
        merchant_id: 'm-1',
        answer: 'found',
        checked_at: '2026-02-02T02:00:00.000Z',
        run_id: 'run-2',
      },
      {
        card_id: 'card-y',
        merchant_id: 'm-1',
        answer: 'not_found',
        checked_at: '2026-02-02T02:00:00.000Z',
        run_id: 'run-2',
      },
    ]);
  });
  it("keeps each merchant's answer about the same card apart", () => {
    const { db, writer } = setup();
    // The owner's list lacked its card, /cards/info found it; another merchant's transaction
    // names it, and /cards/info answers that merchant 404.
    writer.recordMissingCard(
      'card-x',
      'found',
      context('run-1', '2026-02-01T02:00:00.000Z', 'm-1'),
    );
    writer.recordMissingCard(
      'card-x',
      'not_found',
      context('run-1', '2026-02-01T02:01:00.000Z', 'm-2'),
    );
    expect(
      db.prepare('SELECT merchant_id, answer FROM missing_cards ORDER BY merchant_id').all(),
    ).toEqual([
      { merchant_id: 'm-1', answer: 'found' },
      { merchant_id: 'm-2', answer: 'not_found' },
    ]);
  });
});
