import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importOrderFile } from '../../src/journal/order-import.js';
import type { CheckResults } from '../../src/recon/run-checks.js';
import { MerchantSession } from '../support/merchant-session.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
import { failingWindowsAt } from './support/failing-reads.js';
import { checkWorld } from './support/recon-world.js';
import { coverageOf } from './support/run-one.js';

const MINUTE = 60_000;

describe('UNJOURNALED_CARD after a sync that read a new card but not the FEE record of its ISSUE', () => {
  let w: SyncWorld;
  let cardId: string;
  let incomplete: CheckResults;
  let next: CheckResults;

  beforeAll(async () => {
    w = await startSyncWorld({
      seed: 'recon-incomplete-issue',
      merchants: 1,
      world: { cards: 40, transactions: 300, days: 10, anomaliesPerCode: 0 },
    });
    const merchantId = w.t.sandbox.merchants[0]!.merchantId;
    expect((await w.sync()).outcome).toBe('done');
    expect((await w.t.control.post('/_control/clock', { advanceMs: 10 * MINUTE })).status).toBe(
      200,
    );
    // A card issued by an order the books hold, processed at once.
    const session = new MerchantSession(w.t, 0);
    const offering = await session.everydayOffering();
    const amount = session.minor(offering.minLoadAmount) * 10n;
    const submittedAt = (await w.t.control.get('/_control/clock')).body.now as string;
    const issued = await session.activeCard(offering, amount);
    cardId = issued.cardId;
    const feeAt = Date.parse((await session.feeOf(issued.orderNo)).createdAt);
    const books = join(w.dir, 'issue.csv');
    writeFileSync(
      books,
      'merchantOrderNo,kind,cardId,offeringId,amount,currency,submittedAt,orderNo\n' +
        `${issued.merchantOrderNo},ISSUE,,${offering.id},${session.text(amount)},${session.currency},${submittedAt},${issued.orderNo}\n`,
    );
    const mirror = w.openMirror();
    try {
      await importOrderFile(mirror.db, { file: books, merchantId });
    } finally {
      await mirror.close();
    }
    expect((await w.t.control.post('/_control/clock', { advanceMs: 10 * MINUTE })).status).toBe(
      200,
    );
    // The cards are read (the new one ACTIVE), but every window that would read the ISSUE's FEE
    // record fails for good, once the cards have landed: exit 4.
    const failed = await w.sync({ wrapApi: failingWindowsAt(feeAt) });
    expect(failed.outcome).toBe('incomplete');
    expect(failed.merchants[0]?.cards.outcome).toBe('done');
    incomplete = await checkWorld(w);
    expect((await w.sync()).outcome).toBe('done');
    next = await checkWorld(w);
  });
  afterAll(async () => w?.close());

  it('does not call the new card unjournaled while its ISSUE awaits an outcome not yet mirrored', () => {
    expect(incomplete.findings.filter((f) => f.cardId === cardId)).toEqual([]);
    expect(coverageOf(incomplete, 'UNJOURNALED_CARD').skipped.map((s) => s.reason)).toContain(
      'read after the last fully synced transaction while a journal ISSUE awaits its outcome (its FEE record, which links the card, may not be mirrored yet)',
    );
    const undecided = incomplete.undecided.find((u) => u.check === 'UNJOURNALED_CARD')?.undecided;
    expect(undecided?.all ? [cardId] : [...(undecided?.ids.get('cardId') ?? [])]).toContain(cardId);
  });

  it('links it once a sync has read the FEE record: no finding', () => {
    expect(next.findings.filter((f) => f.cardId === cardId)).toEqual([]);
  });
});
