import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/api/index.js';
import { importOrderFile } from '../../src/journal/order-import.js';
import type { CheckResults } from '../../src/recon/run-checks.js';
import { MerchantSession } from '../support/merchant-session.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';
import { checkWorld } from './support/recon-world.js';

const HOUR = 3_600_000;

describe('a FREEZE whose card was last read before it, by a sync that failed on the cards', () => {
  let w: SyncWorld;
  let cardId: string;
  let freezeNo: string;
  let stale: CheckResults;
  let staleCard: { status: string; observedAt: string };
  let submittedAt: string;
  let next: CheckResults;

  beforeAll(async () => {
    w = await startSyncWorld({
      seed: 'recon-stale-status',
      merchants: 1,
      world: { cards: 150, transactions: 300, days: 10, anomaliesPerCode: 0 },
    });
    const merchantId = w.t.sandbox.merchants[0]!.merchantId;
    expect((await w.sync()).outcome).toBe('done');
    // An ACTIVE card of the list's second page, frozen by an order the books hold.
    const page = await w.t.merchants[0]!.get('/cards?page=2&limit=100');
    expect(page.status, page.text).toBe(200);
    cardId = (page.body.data as { cardId: string; status: string }[]).find(
      (c) => c.status === 'ACTIVE',
    )!.cardId;
    submittedAt = new Date().toISOString();
    const freeze = await new MerchantSession(w.t, 0).completed('FREEZE', cardId);
    freezeNo = freeze.orderNo;
    const books = join(w.dir, 'freeze.csv');
    writeFileSync(
      books,
      'merchantOrderNo,kind,cardId,offeringId,amount,currency,submittedAt,orderNo\n' +
        `${freeze.merchantOrderNo},FREEZE,${cardId},,,,${submittedAt},${freeze.orderNo}\n`,
    );
    const mirror = w.openMirror();
    try {
      await importOrderFile(mirror.db, { file: books, merchantId });
    } finally {
      await mirror.close();
    }
    // Two hours on, the sync reads the transactions up to a new cutoff, but the cards' second
    // page fails for good: the card's status in the mirror is still the one read before.
    const moved = await w.t.control.post('/_control/clock', { advanceMs: 2 * HOUR });
    expect(moved.status, moved.text).toBe(200);
    const synced = await w.sync({
      wrapApi: (api) => ({
        ...syncApiOf(api),
        listCards: async (query, options) => {
          if ((query.page ?? 1) === 1) return api.listCards(query, options);
          await sleep(1_000);
          throw new UpstreamError('UPSTREAM_UNAVAILABLE', 'listCards: answered 503', {
            operation: 'listCards',
            status: 503,
            attempts: 6,
          });
        },
      }),
    });
    expect(synced.outcome).toBe('incomplete');
    stale = await checkWorld(w);
    const read = w.openMirror();
    try {
      staleCard = read.db
        .prepare('SELECT status, observed_at AS observedAt FROM cards WHERE card_id = ?')
        .get(cardId) as { status: string; observedAt: string };
    } finally {
      await read.close();
    }
    expect((await w.sync()).outcome).toBe('done');
    next = await checkWorld(w);
  });
  afterAll(async () => w?.close());

  it('has a cutoff past the FREEZE and its grace, and the card as read before the FREEZE', () => {
    expect(staleCard.status).toBe('ACTIVE');
    expect(staleCard.observedAt < submittedAt).toBe(true);
    const cutoff = stale.merchants[0]?.cutoff ?? '';
    expect(Date.parse(cutoff) - Date.parse(submittedAt)).toBeGreaterThan(HOUR);
  });

  it('is no ORDER_NOT_REFLECTED while the card was read before it: the coverage says so', () => {
    expect(stale.findings.filter((f) => f.orderNo === freezeNo)).toEqual([]);
    const coverage = stale.coverage.find((c) => c.check === 'ORDER_NOT_REFLECTED');
    expect(coverage?.skipped.map((s) => s.reason)).toContain(
      'card last read before the order was past grace (its sync failed on the cards): its status may not show it',
    );
    const undecided = stale.undecided.find((u) => u.check === 'ORDER_NOT_REFLECTED')?.undecided;
    expect(undecided?.all ? [freezeNo] : [...(undecided?.ids.get('orderNo') ?? [])]).toContain(
      freezeNo,
    );
  });

  it('is judged by the next run, which reads the card FROZEN: no finding', () => {
    expect(next.findings.filter((f) => f.check === 'ORDER_NOT_REFLECTED')).toEqual([]);
  });
});
