import { UpstreamError } from '../api/index.js';
import { syncBalance, syncOfferings } from './account-sync.js';
import { readFirstCardPage, syncCards } from './card-sync.js';
import { auditCounts } from './count-audit.js';
import { checkMissingCards } from './missing-card-check.js';
import type { MerchantSyncContext } from './sync-context.js';
import { emptyMerchantResult, type MerchantSyncResult, type SyncOutcome } from './sync-result.js';
import { isoTime } from './time-range.js';
import { syncWindows } from './transaction-sync.js';
import { planWindows } from './window-plan.js';

/** How far past the upstream's clock the tail window reaches, for clock skew. */
const TAIL_MARGIN_MS = 60_000;

/** What the runner tells a merchant's sync. */
export interface MerchantSyncOptions {
  /** The merchant id from the configuration; learnt from the cards otherwise. */
  readonly merchantId?: string | undefined;
  /** Called once the cutoff is fixed (the run record keeps it). */
  readonly onCutoff?: (cutoff: number) => void;
}

/**
 * Sync one merchant: cards first (the first page names the merchant), then offerings and
 * balance, the rest of the cards, the transaction windows up to the cutoff, a tail window up
 * to the upstream's present (so every transaction that the card balances already reflect is
 * mirrored), the count audit (late postings and status changes of older rows) and the missing
 * cards. Never throws for upstream
 * failures: they end the merchant's sync with an outcome and what landed stays.
 */
export async function syncMerchant(
  context: MerchantSyncContext,
  options: MerchantSyncOptions = {},
): Promise<MerchantSyncResult> {
  const result = emptyMerchantResult(context.source);
  const log = context.logger;
  let step = 'cards';
  try {
    context.progress.phase(`${context.source}: cards`);
    const firstPage = await readFirstCardPage(context);
    const now = context.api.upstreamNow() ?? context.clock();
    const cutoff = now - context.settings.safetyLagMs;
    options.onCutoff?.(cutoff);
    const merchantId =
      options.merchantId ??
      firstPage.records[0]?.merchantId ??
      knownMerchantId(context) ??
      `source:${context.source}`;
    result.merchantId = merchantId;
    step = 'offerings';
    result.offerings = await syncOfferings(context, merchantId);
    step = 'balance';
    result.balance = await syncBalance(context, merchantId);
    step = 'cards';
    result.cards = await syncCards(context, merchantId, firstPage);

    step = 'transactions';
    context.progress.phase(`${context.source}: transactions`);
    const counts = result.transactions;
    counts.outcome = 'failed';
    const start = historyStart(context, merchantId, cutoff);
    const plan = planWindows({
      start,
      cutoff,
      lookbackMs: context.settings.lookbackMs,
      done: context.writers.progress.read(merchantId),
    });
    await syncWindows(context, merchantId, plan, counts);
    const tailEnd = (context.api.upstreamNow() ?? context.clock()) + TAIL_MARGIN_MS;
    await syncWindows(
      context,
      merchantId,
      [{ kind: 'tail', range: { start: cutoff, end: tailEnd }, markDone: false }],
      counts,
    );
    counts.outcome = 'done';

    step = 'count check';
    const checked = await auditCounts(context, merchantId, { start, end: cutoff }, counts);
    result.audit = { outcome: 'done', ...checked.audit };
    result.unsettled = checked.unsettled;
    step = 'missing cards';
    result.missingCards = await checkMissingCards(context, merchantId);
    context.writers.atomically(() =>
      context.writers.quarantine.resolveRepaired({
        merchantId,
        runId: context.runId,
        observedAt: isoTime(context.clock()),
      }),
    );
    return result;
  } catch (error) {
    result.outcome = outcomeOf(error, context.signal);
    if (result.outcome === 'done') throw error;
    const code = error instanceof UpstreamError ? error.code : 'ABORTED';
    result.error = { code, message: `${step}: ${(error as Error).message}` };
    log.error({ err: error, step, source: context.source }, 'merchant sync stopped');
    return result;
  }
}

function outcomeOf(error: unknown, signal: AbortSignal): SyncOutcome {
  if (error instanceof UpstreamError) {
    if (error.code === 'UPSTREAM_UNAUTHORIZED') return 'unauthorized';
    if (error.code === 'UPSTREAM_ABORTED' || signal.aborted) return 'interrupted';
    return 'incomplete';
  }
  if (signal.aborted) return 'interrupted';
  return 'done';
}

function knownMerchantId(context: MerchantSyncContext): string | undefined {
  const row = context.writers.db
    .prepare(
      'SELECT merchant_id AS merchantId FROM merchants WHERE source = ? ORDER BY updated_at DESC',
    )
    .get(context.source) as { merchantId: string } | undefined;
  return row?.merchantId;
}

/** `--since`, else the earliest of the merchant's cards and done ranges, else the cutoff. */
function historyStart(context: MerchantSyncContext, merchantId: string, cutoff: number): number {
  if (context.settings.since !== undefined) return context.settings.since;
  const row = context.writers.db
    .prepare(
      `SELECT min(at) AS at FROM (
         SELECT min(created_at) AS at FROM cards WHERE merchant_id = ?
         UNION ALL SELECT min(start_at) FROM sync_progress WHERE merchant_id = ?)`,
    )
    .get(merchantId, merchantId) as { at: string | null };
  return row.at ? Date.parse(row.at) : cutoff - context.settings.lookbackMs;
}
