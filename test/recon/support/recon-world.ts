import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import { importOrderFile } from '../../../src/journal/order-import.js';
import type { Mirror } from '../../../src/mirror/open-mirror.js';
import type { Finding } from '../../../src/recon/finding.js';
import { type CheckResults, runChecks } from '../../../src/recon/run-checks.js';
import { fingerprintOf } from '../../support/independent-checker.js';
import type { SyncWorld } from '../../support/sync-harness.js';

/** A finding of the ground-truth manifest (docs/findings.md). */
export interface PlantedFinding {
  readonly check: string;
  readonly merchantId: string;
  readonly cardId?: string;
  readonly transactionId?: string;
  readonly orderNo?: string;
  readonly merchantOrderNo?: string;
  readonly tradeNo?: string;
  readonly detail: string;
}

/** `ground-truth.json` as the world writer leaves it. */
export interface Manifest {
  readonly seed: string;
  readonly findings: readonly PlantedFinding[];
  readonly notPlanted: Readonly<Record<string, string>>;
}

const SECONDARY = ['cardId', 'transactionId', 'orderNo', 'merchantOrderNo', 'tradeNo'] as const;

/** The manifest of a world generated with anomalies. */
export async function readManifest(w: SyncWorld): Promise<Manifest> {
  const file = w.t.sandbox.groundTruthFile;
  if (!file) throw new Error('no ground-truth manifest was written');
  return JSON.parse(await readFile(file, 'utf8')) as Manifest;
}

/** Import every merchant's journal file into the mirror, as `cardsync orders import` does. */
export async function importJournals(w: SyncWorld, mirror: Mirror): Promise<void> {
  for (const merchant of w.t.sandbox.merchants) {
    if (!merchant.journalFile) throw new Error(`merchant ${merchant.merchantId} has no journal`);
    await importOrderFile(mirror.db, {
      file: merchant.journalFile,
      merchantId: merchant.merchantId,
    });
  }
}

/** The checks on `w`'s mirror, its journals imported. */
export async function checkWorld(w: SyncWorld): Promise<CheckResults> {
  const mirror = w.openMirror();
  try {
    await importJournals(w, mirror);
    return runChecks(mirror.db);
  } finally {
    await mirror.close();
  }
}

/**
 * The identity docs/findings.md gives a finding, computed by the tests' own checker (not by
 * src/recon); MERCHANT_BALANCE_MISMATCH, which the control route names by merchant only, by its
 * code and merchant.
 */
export function identity(f: {
  check: string;
  merchantId: string;
  cardId?: string | null;
  transactionId?: string | null;
  orderNo?: string | null;
  merchantOrderNo?: string | null;
  tradeNo?: string | null;
}): string {
  if (f.check === 'MERCHANT_BALANCE_MISMATCH') return `${f.check} merchantId=${f.merchantId}`;
  const defined = (value: string | null | undefined) => (value == null ? {} : { value });
  return fingerprintOf({
    check: f.check,
    merchantId: f.merchantId,
    ...idOf('cardId', defined(f.cardId)),
    ...idOf('transactionId', defined(f.transactionId)),
    ...idOf('orderNo', defined(f.orderNo)),
    ...idOf('merchantOrderNo', defined(f.merchantOrderNo)),
    ...idOf('tradeNo', defined(f.tradeNo)),
  });
}

function idOf(key: string, found: { value?: string }) {
  return found.value === undefined ? {} : { [key]: found.value };
}

/**
 * Require exact agreement: every planted finding found (recall 100 %), nothing else found
 * (precision 100 %), and where both name a secondary id, the same one.
 */
export function expectSameFindings(
  planted: readonly PlantedFinding[],
  found: readonly Finding[],
): void {
  const want = new Map(planted.map((f) => [identity(f), f]));
  const got = new Map(found.map((f) => [identity(f), f]));
  expect(got.size, 'findings with the same identity').toBe(found.length);
  const problems = [
    ...[...want.keys()]
      .filter((id) => !got.has(id))
      .map((id) => `missed: ${id} (${want.get(id)?.detail})`),
    ...[...got.keys()]
      .filter((id) => !want.has(id))
      .map((id) => `unexpected: ${id} (${got.get(id)?.detail})`),
  ];
  for (const [id, mine] of got) {
    const theirs = want.get(id);
    if (!theirs) continue;
    for (const key of SECONDARY) {
      const a = theirs[key];
      const b = mine[key];
      if (a !== undefined && b !== null && a !== b)
        problems.push(`${id}: manifest ${key} ${a}, found ${b}`);
    }
  }
  expect(problems, problems.join('\n')).toEqual([]);
}
