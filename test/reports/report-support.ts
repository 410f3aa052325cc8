import type { CheckCode } from '../../src/recon/check-code.js';
import { type FindingFacts, makeFinding } from '../../src/recon/finding.js';
import type { Reconciliation } from '../../src/recon/findings-store.js';
import { DEFAULT_RECON_SETTINGS } from '../../src/recon/recon-settings.js';
import type { StoredFinding } from '../../src/recon/stored-finding.js';
import type { SummaryInput } from '../../src/reports/summary-rows.js';

const AT = '2026-11-21T02:00:00.000Z';

/** A finding as the store would return it. */
export function stored(
  check: CheckCode,
  merchantId: string,
  facts: FindingFacts,
  extra: Partial<StoredFinding> = {},
): StoredFinding {
  return {
    ...makeFinding(check, merchantId, facts),
    state: 'new',
    firstSeenAt: AT,
    firstSeenRunId: 'r1',
    lastSeenAt: AT,
    lastSeenRunId: 'r1',
    resolvedAt: null,
    resolvedRunId: null,
    acknowledgement: null,
    ...extra,
  };
}

/** A summary input around `reconciliation`, every check on, one merchant fully synced. */
export function summaryInput(
  reconciliation: Partial<Reconciliation>,
  overrides: Partial<SummaryInput> = {},
): SummaryInput {
  return {
    runId: '20261121T020000Z-abcdef',
    command: 'reconcile',
    reconciledAt: AT,
    data: { syncRunId: 's1', syncOutcome: 'done', complete: true, reason: null },
    merchants: [
      {
        merchantId: 'mch_1',
        cutoff: '2026-11-21T01:59:00.000Z',
        start: '2026-10-01T00:00:00.000Z',
        through: '2026-11-21T02:00:00.000Z',
      },
    ],
    coverage: [],
    enabled: DEFAULT_RECON_SETTINGS.enabled,
    reconciliation: {
      runId: '20261121T020000Z-abcdef',
      at: AT,
      current: [],
      acknowledged: [],
      resolved: [],
      ...reconciliation,
    },
    ...overrides,
  };
}
