import { countedExtent, EXTENT_CAP_MS } from './counted-extent.js';
import { mirrorTally } from './mirror-tally.js';
import { type SettledTally, wholeTally } from './settled-history.js';
import type { MerchantSyncContext } from './sync-context.js';
import type { TransactionCounts, UnsettledCounts } from './sync-result.js';
import { changesBetween, same, type Tally } from './tally.js';
import { canSplit, HISTORY_FLOOR, splitRange, type TimeRange } from './time-range.js';
import { syncWindows } from './transaction-sync.js';
import { askUpstream, STATUS_FILTERS } from './upstream-tally.js';
import { listVanished } from './vanished-list.js';

/** What the closing count check found. */
export interface AuditCounts {
  /** Count requests sent. */
  queries: number;
  /** Ranges read again because their counts differed. */
  reread: number;
  /** Ranges where the mirror holds rows the upstream no longer counts. */
  surplus: number;
}

const MAX_ROUNDS = 3;

/** Rows a page holds when the upstream does not say otherwise. */
const PAGE_ROWS = 100;

/**
 * Close a merchant's sync by holding the mirror's counts against the upstream's over the whole
 * synced range: per range, how many transactions, and how many PENDING, COMPLETED and SETTLED
 * (four `limit=1` requests). A row posted late changes the row count, and any single status
 * move, whichever way, changes two statuses' counts (DECLINED is the rest). So when all four
 * agree, nothing in the range changed, unless moves cancelled out (a row moving back while
 * another moved forward, which section 4's forward-only lifecycles rule out) or a row changed
 * something other than its status. Where they differ, the range is halved until it is small for
 * the changes it holds, then read again (the upsert writes the new statuses and rows). So a night
 * whose old rows did not move costs four requests, whatever the history (four more for the
 * history before it, `before`), and each change costs O(log n) of them. This is also how status
 * changes of rows older than the lookback are caught.
 *
 * Each range is counted out to the nearest millisecond on either side where the mirror holds no
 * row, and the upstream is asked for it widened by that millisecond: so the mirror's count is
 * the same whether the upstream's time filters are inclusive, exclusive or mixed, and a row
 * missing from the mirror is never offset by a mirrored row on a boundary the upstream leaves out.
 */
export async function auditCounts(
  context: MerchantSyncContext,
  merchantId: string,
  range: TimeRange,
  counts: TransactionCounts,
  options: {
    /** The tally of history inside `range` that the run did not write, counted ahead. */
    settled?: SettledTally | undefined;
    /**
     * The upstream's counts over `range`, asked for ({@link askUpstream}) once every window was
     * read, while the last ones landed.
     */
    asked?: Promise<Tally> | undefined;
    /**
     * History before `range` that no window reads ({@link historyBefore}), held to the
     * upstream's counts beside it and read where they differ.
     */
    before?: TimeRange | undefined;
  } = {},
): Promise<{ audit: AuditCounts; unsettled: UnsettledCounts }> {
  const audit: AuditCounts = { queries: 0, reread: 0, surplus: 0 };
  // Counting a long range in the mirror takes a while (about 0.2 s a million rows): each range's
  // tally is kept until a read changes the mirror.
  const count = mirrorTally(context, merchantId);
  let tallies = new Map<string, Tally>();
  const mirrored = (start: number, end: number): Tally => {
    const at = `${start}-${end}`;
    let tally = tallies.get(at);
    if (tally === undefined) {
      tally = count(start, end);
      tallies.set(at, tally);
    }
    return tally;
  };
  const upstream = (r: TimeRange): Promise<Tally> => {
    audit.queries += STATUS_FILTERS.length;
    return askUpstream(context, r);
  };
  // The whole range's counts are asked for first (unless they were, once every window was
  // read, over what turns out to be its extent), so the upstream answers while the mirror counts
  // (which takes a while on a long history); the first round uses them.
  const countable = countedExtent(range, mirrored);
  const top = countable ?? range;
  const ahead: Promise<Tally> | null =
    options.asked && top === range && countable
      ? options.asked
      : countable
        ? askUpstream(context, top)
        : null;
  if (ahead) audit.queries += STATUS_FILTERS.length;
  // Counts asked for over a range that turned out not to be its extent were sent all the same.
  if (options.asked && ahead !== options.asked) audit.queries += STATUS_FILTERS.length;
  // The first round's counts asked for already, by the range they are for, with its extent:
  // the whole range's and those of the history before it (before the oldest card).
  const askedFirst = new Map<TimeRange, { q: TimeRange; up: Promise<Tally> }>();
  if (ahead) askedFirst.set(range, { q: top, up: ahead });
  const before = options.before;
  const beforeExtent = before ? countedExtent(before, mirrored) : null;
  if (before && beforeExtent)
    askedFirst.set(before, { q: beforeExtent, up: upstream(beforeExtent) });
  for (const { up } of askedFirst.values()) up.catch(() => {});
  // undici writes a request on an idle keep-alive socket from an immediate of its own, queued
  // after this one: the second turn starts once they are written.
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
  const whole = await wholeTally(top, options.settled, mirrored);
  tallies.set(key(top), whole);
  // The rows watched before the range too: up to its extent, so that none counts twice.
  const earlier =
    before && before.start < top.start ? mirrored(before.start, top.start - 1) : undefined;
  const unsettled: UnsettledCounts = {
    outcome: 'done',
    watched: whole.pending + whole.completed + (earlier ? earlier.pending + earlier.completed : 0),
    changed: 0,
    vanished: 0,
  };
  const updatedBefore = counts.updated;
  const leafRows = context.settings.maxPagesPerWindow * PAGE_ROWS;
  const surplusSeen = new Set<string>();
  const surplusRanges: TimeRange[] = [];
  // Rows listed as vanished by this run. Surplus ranges overlap where their extents reach the
  // same occupied milliseconds (halves of the history around a dense one), and later rounds may
  // read them again: a row is one.
  const vanished = new Set<string>();
  // Whether a surplus range was read in a reading too unsure to list what it missed.
  let surplusUnsure = false;
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    let level: TimeRange[] = before ? [range, before] : [range];
    const reread: TimeRange[] = [];
    while (level.length > 0) {
      const next: TimeRange[] = [];
      await Promise.all(
        level.map(async (r) => {
          const first = askedFirst.get(r);
          askedFirst.delete(r);
          const q = first ? first.q : countedExtent(r, mirrored);
          if (q === null) {
            // Not countable at an edge: halved without asking until it is short, then read.
            if (r.end - r.start < EXTENT_CAP_MS || !canSplit(r)) reread.push(r);
            else next.push(...splitRange(r, 2));
            return;
          }
          const up = await (first ? first.up : upstream(q));
          const mine = mirrored(q.start, q.end);
          if (same(up, mine)) return;
          const step = stepFor(r, up, mine, leafRows);
          if (step === 'halve') next.push(...splitRange(r, 2));
          else if (step === 'read') reread.push(q);
          else if (!surplusSeen.has(key(r))) {
            // The upstream no longer counts rows the mirror holds: read the range once (its other
            // rows may have moved) and report it; reading it again would not bring them back.
            surplusSeen.add(key(r));
            surplusRanges.push(q);
            reread.push(q);
          }
        }),
      );
      level = next;
    }
    if (reread.length === 0) break;
    audit.reread += reread.length;
    context.logger.info(
      { merchantId, ranges: reread.length, round },
      'count check found rows posted late or moved; reading them',
    );
    const read = await syncWindows(
      context,
      merchantId,
      reread.map((r) => ({ kind: 'audit', range: r, markDone: false })),
      counts,
      { collectIds: true },
    );
    tallies = new Map();
    // A row goes on the list only from a reading whose every window matched its count: one cut
    // short by drift on a range too fine to split may have missed rows that are there.
    if (!read.verified && surplusRanges.length > 0) surplusUnsure = true;
    if (read.seen)
      listVanished(
        vanished,
        context,
        merchantId,
        { reread, surplusRanges: read.verified ? surplusRanges : [] },
        read.seen,
      );
    surplusRanges.length = 0;
  }
  audit.surplus = surplusSeen.size;
  unsettled.vanished = vanished.size;
  unsettled.changed = counts.updated - updatedBefore;
  if (audit.surplus > 0 && (vanished.size > 0 || surplusUnsure))
    context.logger.warn(
      { merchantId, ranges: audit.surplus, vanished: unsettled.vanished },
      'the mirror holds transactions the upstream no longer counts',
    );
  else if (audit.surplus > 0)
    // Every row the counts missed was read back within the run: nothing for an operator to do.
    context.logger.info(
      { merchantId, ranges: audit.surplus },
      'the upstream counted fewer transactions than the mirror holds; reading showed them all',
    );
  return { audit, unsettled };
}

/**
 * The history before a merchant's synced range, which starts at its oldest card: no window
 * reads it, and a transaction dated earlier (a clock apart, a backdated posting, an import)
 * would otherwise never be read. The closing audit counts it, four more requests sent beside
 * the first four, and reads it where its counts differ. Undefined when `start` is at the floor.
 */
export function historyBefore(start: number): TimeRange | undefined {
  return start > HISTORY_FLOOR ? { start: HISTORY_FLOOR, end: start - 1 } : undefined;
}

/**
 * What a range `r` whose counts differ calls for (`up`: the upstream's; `mine`: the mirror's):
 * halving, reading, or reading where the upstream counts fewer rows than the mirror holds.
 */
function stepFor(
  r: TimeRange,
  up: Tally,
  mine: Tally,
  leafRows: number,
): 'halve' | 'read' | 'read-surplus' {
  const surplus = up.rows < mine.rows;
  // Read a range once it is small, or once its changes are dense (a page or less per
  // change: halving it further would cost more requests than reading it). Sparse
  // changes are halved towards: a night's settlements sit in a few days of history.
  const changes = changesBetween(up, mine);
  const small = up.rows <= leafRows || up.rows <= changes * PAGE_ROWS || !canSplit(r);
  if (!small) return 'halve';
  return surplus ? 'read-surplus' : 'read';
}

function key(r: TimeRange): string {
  return `${r.start}-${r.end}`;
}
