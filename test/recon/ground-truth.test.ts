import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_CODES } from '../../src/recon/check-code.js';
import type { CheckResults } from '../../src/recon/run-checks.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
import {
  checkWorld,
  expectSameFindings,
  type Manifest,
  type PlantedFinding,
  readManifest,
} from './support/recon-world.js';

const WORLD = { cards: 240, transactions: 2_400, days: 30 } as const;

async function syncAndCheck(w: SyncWorld): Promise<CheckResults> {
  const synced = await w.sync();
  expect(synced.outcome).toBe('done');
  return checkWorld(w);
}

describe.each([
  { seed: 'recon-truth-1', currencies: ['USD', 'JPY'] },
  { seed: 'recon-truth-2', currencies: ['JPY', 'USD'] },
  { seed: 'recon-truth-3', currencies: ['USD', 'JPY'] },
  { seed: 'recon-truth-kwd', currencies: ['KWD'] },
])(
  'reconciling a synced world with planted anomalies (seed $seed, $currencies)',
  ({ seed, currencies }) => {
    let w: SyncWorld;
    let manifest: Manifest;
    let results: CheckResults;
    beforeAll(async () => {
      w = await startSyncWorld({
        seed,
        merchants: 2,
        currencies,
        world: { ...WORLD, anomaliesPerCode: 2 },
      });
      manifest = await readManifest(w);
      results = await syncAndCheck(w);
    });
    afterAll(async () => w?.close());

    it('finds exactly the planted findings: recall and precision 100 %', () => {
      expectSameFindings(manifest.findings, results.findings);
    });

    it('plants and finds every code but MERCHANT_BALANCE_MISMATCH', () => {
      const found = new Set(results.findings.map((f) => f.check));
      expect([...found].sort()).toEqual(
        CHECK_CODES.filter((c) => c !== 'MERCHANT_BALANCE_MISMATCH').sort(),
      );
    });
  },
);

describe('a merchant balance moved between two syncs with nothing in the journal', () => {
  let w: SyncWorld;
  let manifest: Manifest;
  const planted: PlantedFinding[] = [];
  let results: CheckResults;
  beforeAll(async () => {
    w = await startSyncWorld({
      seed: 'recon-truth-drift',
      merchants: 2,
      currencies: ['USD', 'JPY'],
      world: { ...WORLD, anomaliesPerCode: 1 },
    });
    manifest = await readManifest(w);
    expect((await w.sync()).outcome).toBe('done');
    for (const [i, merchant] of w.t.sandbox.merchants.entries()) {
      const answer = await w.t.control.post(
        `/_control/merchants/${merchant.merchantId}/unjournaled-movement`,
        { amount: i === 0 ? '12.34' : '1234', direction: i === 0 ? 'debit' : 'credit' },
      );
      expect(answer.status, answer.text).toBe(201);
      planted.push(answer.body.finding as PlantedFinding);
    }
    results = await syncAndCheck(w);
  });
  afterAll(async () => w?.close());

  it('finds the planted findings and one MERCHANT_BALANCE_MISMATCH per merchant', () => {
    expectSameFindings([...manifest.findings, ...planted], results.findings);
    const drift = results.findings.filter((f) => f.check === 'MERCHANT_BALANCE_MISMATCH');
    expect(drift.map((f) => [f.currency, f.delta])).toEqual(
      expect.arrayContaining([
        ['USD', '-12.34'],
        ['JPY', '1234'],
      ]),
    );
  });

  it('examined the one interval between the two snapshots of each merchant', () => {
    const coverage = results.coverage.filter((c) => c.check === 'MERCHANT_BALANCE_MISMATCH');
    expect(coverage.map((c) => [c.examined.intervals, c.skipped])).toEqual([
      [1, []],
      [1, []],
    ]);
  });
});

describe.each([
  { seed: 'recon-clean-1', currencies: ['USD', 'JPY'] },
  { seed: 'recon-clean-2', currencies: ['KWD', 'JPY'] },
])('reconciling a clean world, synced twice (seed $seed, $currencies)', ({ seed, currencies }) => {
  let w: SyncWorld;
  let results: CheckResults;
  beforeAll(async () => {
    w = await startSyncWorld({
      seed,
      merchants: 2,
      currencies,
      world: { ...WORLD, anomaliesPerCode: 0 },
    });
    expect(w.t.sandbox.groundTruthFile).toBeNull();
    expect((await w.sync()).outcome).toBe('done');
    results = await syncAndCheck(w);
  });
  afterAll(async () => w?.close());

  it('holds no finding', () => {
    expect(results.findings.map((f) => `${f.check} ${f.detail}`)).toEqual([]);
  });

  it('could examine every card, interval and every order past grace', () => {
    const balance = results.coverage.filter((c) => c.check === 'CARD_BALANCE_MISMATCH');
    const skippedCards = balance.flatMap((c) => c.skipped.filter((s) => s.unit === 'cards'));
    expect(skippedCards).toEqual([]);
    expect(balance.every((c) => (c.examined.cards ?? 0) > 50)).toBe(true);
    const reflected = results.coverage.filter((c) => c.check === 'ORDER_NOT_REFLECTED');
    // Orders of the last hour are left for a later run, and said so.
    const reasons = new Set(reflected.flatMap((c) => c.skipped.map((s) => s.reason)));
    expect([...reasons].filter((r) => r !== 'within grace at the cutoff')).toEqual([]);
    const merchant = results.coverage.filter((c) => c.check === 'MERCHANT_BALANCE_MISMATCH');
    expect(merchant.map((c) => c.examined.intervals)).toEqual([1, 1]);
  });
});
