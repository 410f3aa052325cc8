import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMerchantView } from '../../support/client-view.js';
import {
  type CheckedFinding,
  checkMerchant,
  DEFAULT_WINDOWS,
  fingerprintOf,
} from '../../support/independent-checker.js';
import { startTestSandbox, type TestSandbox } from '../../support/test-sandbox.js';

/** Generation and the checks see one instant: the service clock is pinned to it. */
const NOW = Date.parse('2026-11-21T02:00:00.000Z');

/** Every code of docs/findings.md but MERCHANT_BALANCE_MISMATCH, which needs two snapshots. */
const PLANTED_CODES = [
  'CARD_BALANCE_MISMATCH',
  'ISSUANCE_FEE_MISMATCH',
  'DEPOSIT_FEE_MISMATCH',
  'WITHDRAWAL_FEE_MISMATCH',
  'ORDER_NOT_REFLECTED',
  'LOAD_OUT_OF_BOUNDS',
  'CURRENCY_MISMATCH',
  'DUPLICATE_TRANSACTION',
  'OVER_REFUND',
  'ACTIVITY_ON_INACTIVE_CARD',
  'NEGATIVE_BALANCE',
  'ORPHAN_TRANSACTION',
  'STALE_PENDING',
  'PRECISION_VIOLATION',
  'UNJOURNALED_CARD',
] as const;

const ANOMALIES_PER_CODE = 2;

/** The ground-truth manifest as docs/findings.md describes it. */
interface Manifest {
  readonly seed: string;
  readonly generatedAt: string;
  readonly findings: readonly (CheckedFinding & { readonly check: string })[];
  readonly notPlanted: Readonly<Record<string, string>>;
}

const SECONDARY_IDS = ['cardId', 'transactionId', 'orderNo', 'merchantOrderNo', 'tradeNo'] as const;

async function startWorld(
  seed: string,
  currencies: readonly string[],
  anomaliesPerCode: number,
): Promise<TestSandbox> {
  return startTestSandbox({
    seed,
    merchants: 2,
    currencies,
    wallClock: () => NOW,
    world: { cards: 300, transactions: 3_000, days: 30, anomaliesPerCode },
  });
}

/** Every finding the independent checker computes over all merchants, cutoff = the service clock. */
async function computeFindings(t: TestSandbox): Promise<CheckedFinding[]> {
  const clock = await t.control.get('/_control/clock');
  expect(clock.status, clock.text).toBe(200);
  const cutoff = Date.parse(clock.body.now);
  expect(cutoff).toBe(NOW);
  const findings: CheckedFinding[] = [];
  for (const [i, access] of t.sandbox.merchants.entries()) {
    const api = t.merchants[i];
    if (!api || !access.journalFile) throw new Error(`merchant ${i} has no client or no journal`);
    const view = await readMerchantView(api, access.merchantId, access.journalFile);
    findings.push(...checkMerchant(view, { cutoff, ...DEFAULT_WINDOWS }));
  }
  return findings;
}

/** Fingerprints that occur more than once. */
function repeated(fingerprints: readonly string[]): string[] {
  return fingerprints.filter((f, i) => fingerprints.indexOf(f) !== i);
}

const describeFinding = (f: CheckedFinding) => `${fingerprintOf(f)} (${f.detail})`;

describe.each([
  { seed: 'ground-truth-1', currencies: ['USD', 'JPY'] },
  { seed: 'ground-truth-2', currencies: ['USD', 'JPY'] },
  { seed: 'ground-truth-3', currencies: ['USD', 'JPY'] },
  { seed: 'ground-truth-kwd', currencies: ['KWD'] },
  // No fixed partner: a currency mismatch must still name another currency than the card's.
  { seed: 'ground-truth-xof', currencies: ['XOF'] },
])('a world with planted anomalies (seed $seed, $currencies)', ({ seed, currencies }) => {
  let t: TestSandbox;
  let manifest: Manifest;
  let computed: CheckedFinding[];
  beforeAll(async () => {
    t = await startWorld(seed, currencies, ANOMALIES_PER_CODE);
    if (!t.sandbox.groundTruthFile) throw new Error('no ground-truth manifest was written');
    manifest = JSON.parse(await readFile(t.sandbox.groundTruthFile, 'utf8')) as Manifest;
    computed = await computeFindings(t);
  });
  afterAll(async () => t?.close());

  it('lists exactly the findings an independent client-side ledger computes', () => {
    const planted = manifest.findings.map(fingerprintOf);
    const found = computed.map(fingerprintOf);
    expect(repeated(planted), 'fingerprints listed twice in the manifest').toEqual([]);
    expect(repeated(found), 'fingerprints computed twice').toEqual([]);
    const missing = manifest.findings.filter((f) => !found.includes(fingerprintOf(f)));
    const unexpected = computed.filter((f) => !planted.includes(fingerprintOf(f)));
    const problems = [
      ...missing.map((f) => `planted but not real under the model: ${describeFinding(f)}`),
      ...unexpected.map((f) => `real but not in the manifest: ${describeFinding(f)}`),
    ];
    expect(problems, problems.join('\n')).toEqual([]);
    expect(found.length).toBe(planted.length);
  });

  it('names the same cards, transactions, orders and trades as the computed findings', () => {
    const byFingerprint = new Map(computed.map((f) => [fingerprintOf(f), f]));
    const disagreements: string[] = [];
    for (const planted of manifest.findings) {
      const own = byFingerprint.get(fingerprintOf(planted));
      for (const key of SECONDARY_IDS) {
        const a = planted[key];
        const b = own?.[key];
        if (a !== undefined && b !== undefined && a !== b) {
          disagreements.push(`${fingerprintOf(planted)}: manifest ${key} ${a}, computed ${b}`);
        }
      }
    }
    expect(disagreements, disagreements.join('\n')).toEqual([]);
  });

  it(`plants ${ANOMALIES_PER_CODE} of every code one world can hold, in every merchant`, () => {
    expect(manifest.seed).toBe(seed);
    expect(Date.parse(manifest.generatedAt)).toBe(NOW);
    expect(Object.keys(manifest.notPlanted)).toEqual(['MERCHANT_BALANCE_MISMATCH']);
    const merchants = t.sandbox.merchants.map((m) => m.merchantId);
    for (const code of PLANTED_CODES) {
      const ofCode = manifest.findings.filter((f) => f.check === code);
      expect(ofCode, code).toHaveLength(ANOMALIES_PER_CODE);
      expect(new Set(ofCode.map((f) => f.merchantId)), code).toEqual(new Set(merchants));
      expect(
        computed.filter((f) => f.check === code),
        code,
      ).toHaveLength(ANOMALIES_PER_CODE);
    }
    expect(manifest.findings).toHaveLength(PLANTED_CODES.length * ANOMALIES_PER_CODE);
  });
});

describe.each([
  { seed: 'clean-1', currencies: ['USD', 'JPY'] },
  { seed: 'clean-2', currencies: ['KWD', 'JPY'] },
])('a world without anomalies (seed $seed, $currencies)', ({ seed, currencies }) => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startWorld(seed, currencies, 0);
  });
  afterAll(async () => t?.close());

  it('writes no manifest and holds no finding under the independent checks', async () => {
    expect(t.sandbox.groundTruthFile).toBeNull();
    expect(t.sandbox.world?.groundTruth).toBeNull();
    const findings = await computeFindings(t);
    expect(findings.map(describeFinding)).toEqual([]);
  });
});
