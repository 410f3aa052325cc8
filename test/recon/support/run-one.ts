import { ALL_CHECKS } from '../../../src/recon/all-checks.js';
import type { CheckCode } from '../../../src/recon/check-code.js';
import { type ReconSettingsInput, reconSettings } from '../../../src/recon/recon-settings.js';
import { type CheckResults, runChecks } from '../../../src/recon/run-checks.js';
import type { TestLedger } from './test-ledger.js';

/** Run the checks of `codes` (all when empty) over the ledger's merchant. */
export function runOn(
  ledger: TestLedger,
  codes: readonly CheckCode[] = [],
  options: { settings?: ReconSettingsInput; cutoff?: string } = {},
): CheckResults {
  return runChecks(ledger.db, {
    merchantIds: [ledger.merchantId],
    settings: reconSettings(options.settings),
    checks: codes.length === 0 ? ALL_CHECKS : ALL_CHECKS.filter((c) => codes.includes(c.code)),
    ...(options.cutoff ? { cutoffByMerchant: { [ledger.merchantId]: options.cutoff } } : {}),
  });
}

/** The findings of one run as `CODE id...` lines, for readable assertions. */
export function lines(results: CheckResults): string[] {
  return results.findings.map((f) =>
    [
      f.check,
      ...(['cardId', 'transactionId', 'orderNo', 'tradeNo', 'snapshotAt'] as const)
        .filter((key) => f[key] !== null)
        .map((key) => `${key}=${f[key]}`),
    ].join(' '),
  );
}

/** The coverage of `code` (one merchant). */
export function coverageOf(results: CheckResults, code: CheckCode) {
  const coverage = results.coverage.find((c) => c.check === code);
  if (!coverage) throw new Error(`no coverage for ${code}`);
  return coverage;
}
