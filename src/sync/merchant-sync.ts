import { setMaxListeners } from 'node:events';
import { refusesCredentials, UpstreamError } from '../api/index.js';
import type { Card } from '../contract/index.js';
import { utcInstant } from '../contract/utc-instant.js';
import { syncBalance, syncOfferings } from './account-sync.js';
import { logCardIndexBuilt } from './card-index-build.js';
import { readFirstCardPage, syncCards } from './card-sync.js';
import { auditCounts, historyBefore } from './count-audit.js';
import { merchantOfPage } from './merchant-of-page.js';
import { checkMissingCards } from './missing-card-check.js';
import { settledHistory, tallyAhead } from './settled-history.js';
import { type MerchantSyncContext, readTime } from './sync-context.js';
import { emptyMerchantResult, type MerchantSyncResult, type SyncOutcome } from './sync-result.js';
import type { Tally } from './tally.js';
import { isoTime } from './time-range.js';
import { syncWindows } from './transaction-sync.js';
import { askUpstream } from './upstream-tally.js';
import { planRemainder, planWindows } from './window-plan.js';

/** What the runner tells a merchant's sync. */
export interface MerchantSyncOptions {
  /** The merchant id from the configuration; learnt from the cards otherwise. */
  readonly merchantId?: string | undefined;
  /** Called once the cutoff is fixed (the run record keeps it). */
  readonly onCutoff?: (cutoff: number) => void;
}

/**
 * Sync one merchant. The first page of cards comes first: it names the merchant and fixes the
 * cutoff. Then, side by side, the offerings, the balance, the rest of the cards and the
 * transaction windows up to the cutoff (from the earliest card known so far); once the cards
 * are in, the history before an earlier card and a tail window up to the upstream's present (so
 * every transaction that the card balances reflect is mirrored). Last, the count audit (late
 * postings and status changes of older rows) and the missing cards. Never throws for upstream
 * failures: the first one stops the rest and ends the merchant's sync with an outcome, and what
 * landed stays.
 */
export async function syncMerchant(
  context: MerchantSyncContext,
  options: MerchantSyncOptions = {},
): Promise<MerchantSyncResult> {
  const result = emptyMerchantResult(context.source);
  // One failure stops the merchant's other work (its requests are aborted); a stop of the run
  // stops it too.
  const stop = new AbortController();
  // Every request in flight listens to it.
  setMaxListeners(0, stop.signal);
  const stopWork = () => stop.abort(context.signal.reason);
  if (context.signal.aborted) stopWork();
  context.signal.addEventListener('abort', stopWork, { once: true });
  const work: MerchantSyncContext = { ...context, signal: stop.signal };
  let failure: { step: string; error: unknown } | null = null;
  const halt = (name: string) => (error: unknown) => {
    if (failure) return;
    failure = { step: name, error };
    stop.abort();
  };
  const step = <T>(name: string, promise: Promise<T>): Promise<T> =>
    promise.catch((error: unknown) => {
      halt(name)(error);
      throw error;
    });
  try {
    context.progress.phase(`${context.source}: cards and transactions`);
    const firstPage = await step('cards', readFirstCardPage(work));
    const now = context.api.upstreamNow() ?? context.clock();
    const cutoff = now - context.settings.safetyLagMs;
    options.onCutoff?.(cutoff);
    // Until a first card shows the merchant's id, its rows are kept under a provisional one,
    // moved to the real id by the first run that learns it.
    const provisional = `source:${context.source}`;
    const known =
      options.merchantId === undefined
        ? knownMerchantId(context, firstPage.pagination.total > 0)
        : undefined;
    if (options.merchantId !== undefined)
      checkConfiguredMerchant(options.merchantId, firstPage.records);
    const merchantId =
      options.merchantId ?? merchantOfPage(firstPage.records, known) ?? known ?? provisional;
    result.merchantId = merchantId;
    if (merchantId !== provisional) adoptProvisional(context, provisional, merchantId);

    const offerings = step('offerings', syncOfferings(work, merchantId));
    const balance = step('balance', syncBalance(work, merchantId));
    const cards = step(
      'cards',
      syncCards(work, merchantId, firstPage, { onFailure: halt('cards') }),
    );
    const counts = result.transactions;
    counts.outcome = 'failed';
    const input = {
      start: historyStart(context, merchantId, cutoff, [
        ...firstPage.records,
        ...firstPage.rejected.map((error) => error.raw),
      ]),
      cutoff,
      lookbackMs: context.settings.lookbackMs,
      done: context.writers.progress.read(merchantId),
    };
    const plan = planWindows(input);
    // History before the first window is not written by this run: its tally for the closing
    // audit is counted while the pages are read.
    const settled = settledHistory(input.start, plan);
    const settledTally = settled ? tallyAhead(work, merchantId, settled) : undefined;
    let start = input.start;
    // The tail is planned once the balance is in too (its failure stops the run anyway): a
    // snapshot read after the tail's end is not judged by MERCHANT_BALANCE_MISMATCH that night.
    const afterCards = Promise.all([cards, balance.catch(() => undefined)]).then(() => {
      start = historyStart(context, merchantId, cutoff);
      // The upstream's present, on the clock every read is stamped with: the reconciliation takes
      // the tail's end for where transactions are mirrored without a gap (`through`), so it
      // reaches no further than what exists now. A minute past it claimed rows created after the
      // run, and a card read by the missing-card check within that minute was held against
      // transactions never read.
      const tailEnd = readTime(context);
      return [
        ...planRemainder({ ...input, start }, plan),
        { kind: 'tail' as const, range: { start: cutoff, end: tailEnd }, markDone: false },
      ];
    });
    // Awaited by the pool unless it stopped first; a card failure is reported as the cards'.
    afterCards.catch(() => {});
    // The audit's first counts are asked for once every window is read: the upstream answers
    // while the last windows land.
    let asked: Promise<Tally> | undefined;
    const windows = step(
      'transactions',
      syncWindows(work, merchantId, plan, counts, {
        later: afterCards,
        onFailure: halt('transactions'),
        onRead: () => {
          asked = askUpstream(work, { start, end: cutoff });
          asked.catch(() => {});
        },
      }),
    );
    const [offered, balanced, carded] = await Promise.allSettled([
      offerings,
      balance,
      cards,
      windows,
    ]);
    if (offered.status === 'fulfilled') result.offerings = offered.value;
    if (balanced.status === 'fulfilled') result.balance = balanced.value;
    if (carded.status === 'fulfilled') result.cards = carded.value;
    if (failure) throw (failure as { error: unknown }).error;
    // A stop between requests ends the windows without an error (the pool starts no more): the
    // step did not finish, and says so as one stopped mid-request does.
    if (work.signal.aborted) {
      halt('transactions')(work.signal.reason);
      throw work.signal.reason;
    }
    counts.outcome = 'done';

    // Everything read has landed. A first sync landed its rows without the index by card: the
    // writer thread builds it while this one audits, instead of after the audit (about 0.7 s at
    // 1M rows, which the audit mostly covers).
    const indexed = context.writerThread.buildCardIndex().then((durationMs) => {
      if (durationMs !== undefined) logCardIndexBuilt(context.logger, durationMs);
    });
    // Awaited below; a run that stops first leaves it to the writer thread's close.
    indexed.catch(() => {});
    // Then the WAL goes back into the mirror file on the writer thread, instead of when the
    // mirror closes after the run.
    void context.writerThread
      .checkpoint()
      .catch((error: unknown) =>
        context.logger.warn(
          { err: error },
          'the checkpoint after landing failed; closing retries it',
        ),
      );
    const checked = await step(
      'count check',
      auditCounts(work, merchantId, { start, end: cutoff }, counts, {
        settled: settledTally,
        asked,
        // `--since` says where this run's history starts: nothing before it is read.
        before: context.settings.since === undefined ? historyBefore(start) : undefined,
      }),
    );
    result.audit = { outcome: 'done', ...checked.audit };
    result.unsettled = checked.unsettled;
    // The missing cards are found through the index by card.
    await step('card index', indexed);
    result.missingCards = await step('missing cards', checkMissingCards(work, merchantId));
    context.writers.atomically(() =>
      context.writers.quarantine.resolveRepaired({
        merchantId,
        runId: context.runId,
        observedAt: isoTime(context.clock()),
      }),
    );
    warnUnverified(context, result.transactions.unverified);
    return result;
  } catch (error) {
    const cause = failure ?? { step: 'merchant', error };
    result.outcome = outcomeOf(cause.error, context.signal);
    if (result.outcome === 'done') throw cause.error;
    const code = cause.error instanceof UpstreamError ? cause.error.code : 'ABORTED';
    result.error = { code, message: `${cause.step}: ${(cause.error as Error).message}` };
    // A stop asked for (SIGTERM, SIGINT, a lost lock, which logs its own error) is no failure
    // of the merchant's sync: a warning with the step it stopped in, not an error and a stack.
    if (result.outcome === 'interrupted')
      context.logger.warn(
        { step: cause.step, source: context.source, reason: result.error.message },
        'merchant sync stopped',
      );
    // An upstream that failed (a refused key, an unreachable host) is the operator's to mend,
    // not a bug: its code and details say what failed, without a stack; anything else keeps it.
    else if (cause.error instanceof UpstreamError)
      context.logger.error(
        { error: upstreamFailure(cause.error), step: cause.step, source: context.source },
        'merchant sync stopped',
      );
    else
      context.logger.error(
        { err: cause.error, step: cause.step, source: context.source },
        'merchant sync stopped',
      );
    return result;
  } finally {
    context.signal.removeEventListener('abort', stopWork);
  }
}

/** What a log line says of an upstream's failure: its code, message and the call's details. */
function upstreamFailure(error: UpstreamError) {
  const { code, message, operation, status, upstreamCode, attempts, requestId } = error;
  return { code, message, operation, status, upstreamCode, attempts, requestId };
}

/**
 * One warning for the windows whose count never matched what was read (drift on ranges too fine
 * to split), however many: the ranges themselves are debug lines.
 */
function warnUnverified(context: MerchantSyncContext, windows: number): void {
  if (windows === 0) return;
  context.logger.warn(
    { windows },
    'window count never matched: drift on ranges that cannot be cut finer (the ranges at debug)',
  );
}

function outcomeOf(error: unknown, signal: AbortSignal): SyncOutcome {
  if (error instanceof UpstreamError) {
    // A key reading another merchant than the configured one is not this merchant's key either;
    // credentials the proxy refused need a person as much as a refused key.
    if (refusesCredentials(error.code) || error.code === 'UPSTREAM_OTHER_MERCHANT')
      return 'unauthorized';
    if (error.code === 'UPSTREAM_ABORTED' || signal.aborted) return 'interrupted';
    return 'incomplete';
  }
  if (signal.aborted) return 'interrupted';
  return 'done';
}

/**
 * The real merchant id a source's earlier runs learnt, if any. It stands in for a first page
 * without a valid card (all malformed), not for an empty list (`listed` false) when that
 * merchant's cards are mirrored: cards are never deleted, so the key reads another merchant then,
 * such as a new account given the name of a removed one.
 */
function knownMerchantId(context: MerchantSyncContext, listed: boolean): string | undefined {
  const row = context.writers.db
    .prepare(
      `SELECT merchant_id AS merchantId,
              EXISTS (SELECT 1 FROM cards c WHERE c.merchant_id = m.merchant_id) AS carded
       FROM merchants m WHERE source = ? AND merchant_id <> ? ORDER BY updated_at DESC`,
    )
    .get(context.source, `source:${context.source}`) as
    | { merchantId: string; carded: number }
    | undefined;
  return row && (listed || row.carded === 0) ? row.merchantId : undefined;
}

/**
 * Refuse to sync under `configured` (the configuration's `merchantId`) a key whose first page of
 * cards carries only other merchants' ids: every card would be quarantined as another merchant's
 * and its transactions mirrored under the configured id, another merchant's perhaps (an entry
 * copied and one value missed), while the run ended well.
 * @throws UpstreamError UPSTREAM_OTHER_MERCHANT naming both ids.
 */
function checkConfiguredMerchant(configured: string, cards: readonly Card[]): void {
  const read = merchantOfPage(cards, configured);
  if (read === undefined || read === configured) return;
  throw new UpstreamError(
    'UPSTREAM_OTHER_MERCHANT',
    `the key reads merchant ${read}, not the merchantId the configuration gives it (${configured})`,
    { operation: 'listCards', attempts: 1 },
  );
}

/**
 * Move the rows kept under the name's provisional id to the merchant it names now, unless that
 * merchant's cards were mirrored already: it had cards all along (cards are never deleted), so the
 * name read another account then, one with no card (a name given to a known merchant after its
 * own was removed), whose balance snapshots would join this merchant's history.
 */
function adoptProvisional(context: MerchantSyncContext, provisional: string, merchantId: string) {
  const { db } = context.writers;
  if (db.prepare('SELECT 1 FROM merchants WHERE merchant_id = ?').get(provisional) === undefined)
    return;
  if (db.prepare('SELECT 1 FROM cards WHERE merchant_id = ?').get(merchantId) !== undefined) {
    context.logger.warn(
      { provisional, merchantId },
      'rows kept under the provisional id are another account: left apart from the merchant whose cards the mirror holds',
    );
    return;
  }
  const moved = context.writers.atomically(() =>
    context.writers.merchants.adoptMerchant(provisional, merchantId),
  );
  if (moved)
    context.logger.info(
      { provisional, merchantId },
      'merchant id learnt: rows kept under the provisional id moved to it',
    );
}

/**
 * `--since`, else the earliest of the merchant's cards (in the mirror and in `seen`, cards read
 * but perhaps not landed yet, malformed ones included: a quarantined card's transactions are
 * mirrored like any other's) and done ranges, else the lookback; never after the cutoff (a
 * merchant whose first card is younger than the safety lag, or a `--since` ahead of it: its
 * history is then the cutoff's millisecond, and the tail window reads what follows).
 */
function historyStart(
  context: MerchantSyncContext,
  merchantId: string,
  cutoff: number,
  seen: readonly unknown[] = [],
): number {
  if (context.settings.since !== undefined) return Math.min(context.settings.since, cutoff);
  const row = context.writers.db
    .prepare(
      `SELECT min(at) AS at FROM (
         SELECT min(created_at) AS at FROM cards WHERE merchant_id = ?
         UNION ALL SELECT min(start_at) FROM sync_progress WHERE merchant_id = ?)`,
    )
    .get(merchantId, merchantId) as { at: string | null };
  const quarantined = context.writers.db
    .prepare(
      `SELECT raw_json FROM quarantine WHERE merchant_id = ? AND resource = 'cards'
         AND resolved_at IS NULL`,
    )
    .pluck()
    .all(merchantId) as string[];
  const known = [
    ...(row.at === null ? [] : [Date.parse(row.at)]),
    ...[...seen, ...quarantined.map((raw) => JSON.parse(raw) as unknown)].map((card) =>
      cardCreatedAt(card, merchantId),
    ),
  ].filter((at): at is number => at !== undefined && !Number.isNaN(at));
  // A loop, not Math.min(...known): 150,000 quarantined cards would overflow the stack as arguments.
  return known.length > 0
    ? known.reduce((earliest, at) => Math.min(earliest, at), cutoff)
    : cutoff - context.settings.lookbackMs;
}

/**
 * When a card record, valid or not, was created, unless it names another merchant or has no
 * real instant for `createdAt`.
 */
function cardCreatedAt(card: unknown, merchantId: string): number | undefined {
  if (typeof card !== 'object' || card === null) return undefined;
  const { createdAt, merchantId: owner } = card as { createdAt?: unknown; merchantId?: unknown };
  if (typeof owner === 'string' && owner !== merchantId) return undefined;
  const at = typeof createdAt === 'string' ? utcInstant(createdAt) : undefined;
  return at === undefined ? undefined : Date.parse(at);
}
