import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardIssuingClient } from '../../src/api/index.js';
import type { Mirror } from '../../src/mirror/open-mirror.js';
import { ackFinding } from '../../src/recon/findings-store.js';
import type { NightlyRunResult } from '../../src/runner/nightly-run.js';
import { MerchantSession } from '../support/merchant-session.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
import { nightly } from './runner-world.js';

/**
 * A merchant with no card yet is synced under a provisional id (`source:<name>`, docs/sync.md)
 * until a card shows its real id; its findings meanwhile are about the same money as after.
 */
describe('a finding recorded while the merchant id was provisional', () => {
  let w: SyncWorld;
  let mirror: Mirror;
  let opened: NightlyRunResult;
  let learnt: NightlyRunResult;
  const mbm = (run: NightlyRunResult, list: 'current' | 'resolved' | 'acknowledged') =>
    (run.reconcile?.reconciliation[list] ?? []).filter(
      (f) => f.check === 'MERCHANT_BALANCE_MISMATCH',
    );

  beforeAll(async () => {
    w = await startSyncWorld({ merchants: 1, seed: 'provisional-findings' });
    mirror = w.openMirror();
    const real = w.t.sandbox.merchants[0]!.merchantId;
    expect((await nightly(w, mirror.db)).sync.merchants[0]?.merchantId).toBe('source:m0');
    // A top-up no journal row explains, before the merchant's first card.
    const planted = await w.t.control.post(`/_control/merchants/${real}/unjournaled-movement`, {
      amount: '12.34',
      direction: 'credit',
    });
    expect(planted.status, planted.text).toBe(201);
    opened = await nightly(w, mirror.db);
    expect(opened.sync.merchants[0]?.merchantId).toBe('source:m0');
    const [finding] = mbm(opened, 'current');
    expect(finding).toMatchObject({ state: 'new', merchantId: 'source:m0', delta: '12.34' });
    ackFinding(mirror.db, finding!.fingerprint, {
      reason: 'opening top-up, ticket 7',
      until: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      now: new Date().toISOString(),
    });
    // The first card names the merchant: the next run learns its id.
    await new MerchantSession(w.t, 0).activeCard();
    learnt = await nightly(w, mirror.db);
    expect(learnt.sync.merchants[0]?.merchantId).toBe(real);
  });
  afterAll(async () => {
    await mirror?.close();
    await w?.close();
  });

  it('is the same finding once the id is learnt: not resolved, not opened anew, still acknowledged', () => {
    const before = mbm(opened, 'current')[0]!;
    const real = w.t.sandbox.merchants[0]!.merchantId;
    const about = (f: { snapshotAt: string | null }) => f.snapshotAt === before.snapshotAt;
    expect(mbm(learnt, 'resolved').filter(about)).toEqual([]);
    expect(mbm(learnt, 'current').filter(about)).toEqual([]);
    expect(mbm(learnt, 'acknowledged').filter(about)).toMatchObject([
      {
        merchantId: real,
        state: 'persisting',
        firstSeenAt: before.firstSeenAt,
        delta: '12.34',
        acknowledgement: { reason: 'opening top-up, ticket 7' },
      },
    ]);
  });
});

describe('a name whose merchant had no card, given to a merchant the mirror knows', () => {
  let w: SyncWorld;
  let mirror: Mirror;
  const clients: CardIssuingClient[] = [];
  const source = (name: string, merchant: number) => {
    const api = new CardIssuingClient({
      baseUrl: w.t.sandbox.baseUrl,
      apiKey: w.t.sandbox.merchants[merchant]!.apiKey,
      ca: w.t.sandbox.caPem,
    });
    clients.push(api);
    return { source: name, baseUrl: w.t.sandbox.baseUrl, api };
  };

  beforeAll(async () => {
    w = await startSyncWorld({ merchants: 2, seed: 'provisional-renamed' });
    mirror = w.openMirror();
    // The first merchant has a card; the second, a new account, none.
    await new MerchantSession(w.t, 0).activeCard();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await mirror?.close();
    await w?.close();
  });

  it("keeps the other account's provisional rows out of the known merchant's history", async () => {
    const known = w.t.sandbox.merchants[0]!.merchantId;
    const night1 = await nightly(w, mirror.db, { sources: [source('eu', 0), source('us', 1)] });
    expect(night1.sync.merchants.map((m) => m.merchantId)).toEqual([known, 'source:us']);
    // Next night `us` is gone and `eu` is renamed `us`.
    const night2 = await nightly(w, mirror.db, { sources: [source('us', 0)] });
    expect(night2.sync.merchants.map((m) => m.merchantId)).toEqual([known]);
    const snapshots = mirror.db
      .prepare('SELECT count(*) FROM merchant_balances WHERE merchant_id = ?')
      .pluck()
      .get(known);
    expect(snapshots).toBe(2);
    expect(
      night2.reconcile?.reconciliation.current.filter(
        (f) => f.check === 'MERCHANT_BALANCE_MISMATCH',
      ),
    ).toEqual([]);
  });
});
