import type { SyncResult } from '../sync/sync-result.js';

/** The human summary of a sync, a few lines for a terminal or a cron mail. */
export function formatSyncSummary(result: SyncResult, mirrorFile: string): string {
  const lines = [
    `sync ${result.runId}: ${result.outcome} in ${(result.durationMs / 1000).toFixed(1)} s (cutoff ${result.cutoff ?? 'none'})`,
  ];
  for (const m of result.merchants) {
    const t = m.transactions;
    lines.push(
      `  ${m.source} (${m.merchantId ?? 'unknown merchant'}): ${m.outcome}` +
        ` · cards ${m.cards.fetched} (${m.cards.inserted} new, ${m.cards.updated} changed)` +
        ` · transactions ${t.fetched} read in ${t.windows} windows (${t.inserted} new, ${t.updated} changed)` +
        ` · old rows moved ${m.unsettled.changed} (count audit: ${m.audit.queries} requests)` +
        ` · orphans ${m.missingCards.orphans}` +
        ` · quarantined ${m.cards.quarantined + t.quarantined + m.offerings.quarantined}`,
    );
    if (m.error) lines.push(`    stopped: ${m.error.code}: ${m.error.message}`);
  }
  lines.push(`  mirror: ${mirrorFile}`);
  return `${lines.join('\n')}\n`;
}
