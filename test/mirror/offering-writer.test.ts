import { describe, expect, it } from 'vitest';
import { OfferingWriter } from '../../src/mirror/offering-writer.js';
import { context, offering, useTempMirrors } from './mirror-fixtures.js';

const temp = useTempMirrors();

const RUN1 = context('run-1', '2026-02-01T02:00:00.000Z');
const RUN2 = context('run-2', '2026-02-02T02:00:00.000Z');
const RUN3 = context('run-3', '2026-02-03T02:00:00.000Z');

function setup() {
  const mirror = temp.open();
  const writer = new OfferingWriter(mirror.db);
  const current = (id = 'off-1') =>
    mirror.db.prepare('SELECT * FROM offerings WHERE id = ?').get(id) as Record<string, unknown>;
  const versions = (id = 'off-1') =>
    mirror.db
      .prepare('SELECT * FROM offering_versions WHERE id = ? ORDER BY version')
      .all(id) as Record<string, unknown>[];
  return { writer, current, versions };
}

describe('OfferingWriter', () => {
  it('stores a new offering as version 1 in offerings and offering_versions', () => {
    const { writer, current, versions } = setup();
    expect(writer.write([offering()], RUN1)).toEqual({ inserted: 1, updated: 0, unchanged: 0 });
    expect(current()).toEqual({
      id: 'off-1',
      merchant_id: 'm-1',
      name: 'Virtual Visa',
      network: 'VISA',
      type: 'VIRTUAL',
      currency: 'USD',
      min_load_amount: '10.00',
      min_load_amount_minor: 1000,
      max_load_amount: '5000.00',
      max_load_amount_minor: 500_000,
      issuance_fee: '2.00',
      issuance_fee_minor: 200,
      deposit_fee_percent: '1.5',
      requires_holder: 0,
      version: 1,
      first_seen_at: RUN1.observedAt,
      updated_at: RUN1.observedAt,
      last_seen_at: RUN1.observedAt,
    });
    expect(versions()).toEqual([
      expect.objectContaining({
        version: 1,
        issuance_fee: '2.00',
        observed_at: RUN1.observedAt,
        run_id: 'run-1',
      }),
    ]);
  });

  it('counts the same terms unchanged, keeps version 1 and only moves last_seen_at', () => {
    const { writer, current, versions } = setup();
    writer.write([offering()], RUN1);
    expect(writer.write([offering()], RUN2)).toEqual({ inserted: 0, updated: 0, unchanged: 1 });
    expect(current()).toMatchObject({
      version: 1,
      updated_at: RUN1.observedAt,
      last_seen_at: RUN2.observedAt,
    });
    expect(versions()).toHaveLength(1);
  });

  it('makes a changed fee version 2 in offering_versions and offerings, keeping version 1', () => {
    const { writer, current, versions } = setup();
    writer.write([offering()], RUN1);
    writer.write([offering()], RUN2);
    expect(writer.write([offering({ issuanceFee: '3.00' })], RUN3)).toEqual({
      inserted: 0,
      updated: 1,
      unchanged: 0,
    });
    expect(current()).toMatchObject({
      version: 2,
      issuance_fee: '3.00',
      issuance_fee_minor: 300,
      first_seen_at: RUN1.observedAt,
      updated_at: RUN3.observedAt,
      last_seen_at: RUN3.observedAt,
    });
    expect(versions().map((v) => [v.version, v.issuance_fee, v.run_id])).toEqual([
      [1, '2.00', 'run-1'],
      [2, '3.00', 'run-3'],
    ]);
  });

  it('makes a new version for any changed term: percent, holder requirement, name', () => {
    const { writer, current } = setup();
    writer.write([offering()], RUN1);
    writer.write([offering({ depositFeePercent: '2' })], RUN2);
    writer.write([offering({ depositFeePercent: '2', requiresHolder: true })], RUN3);
    writer.write(
      [offering({ depositFeePercent: '2', requiresHolder: true, name: 'Visa Plus' })],
      context('run-4', '2026-02-04T02:00:00.000Z'),
    );
    expect(current()).toMatchObject({
      version: 4,
      deposit_fee_percent: '2',
      requires_holder: 1,
      name: 'Visa Plus',
    });
  });

  it('keeps each offering versioned on its own', () => {
    const { writer, current } = setup();
    writer.write([offering({ id: 'a' }), offering({ id: 'b' })], RUN1);
    const counts = writer.write(
      [offering({ id: 'a' }), offering({ id: 'b', maxLoadAmount: '9000.00' })],
      RUN2,
    );
    expect(counts).toEqual({ inserted: 0, updated: 1, unchanged: 1 });
    expect(current('a')).toMatchObject({ version: 1 });
    expect(current('b')).toMatchObject({ version: 2, max_load_amount_minor: 900_000 });
  });

  it('records with each new version when the one before it was last seen', () => {
    const { writer, versions } = setup();
    writer.write([offering()], RUN1);
    writer.write([offering()], RUN2);
    writer.write([offering({ issuanceFee: '3.00' })], RUN3);
    expect(versions().map((v) => [v.version, v.observed_at, v.previous_seen_at])).toEqual([
      [1, RUN1.observedAt, null],
      [2, RUN3.observedAt, RUN2.observedAt],
    ]);
  });
});
