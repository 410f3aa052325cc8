import { describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../src/recon/finding-identity.js';
import { FindingsError } from '../../src/recon/findings-error.js';
import { ackFinding, listFindings, recordReconciliation } from '../../src/recon/findings-store.js';
import { useTempMirrors } from '../mirror/mirror-fixtures.js';
import { runOn } from './support/run-one.js';
import {
  DAY,
  HISTORY_AT,
  HOUR,
  MINUTE,
  openLedger,
  READ_AT,
  shift,
  type TestCard,
  type TestLedger,
} from './support/test-ledger.js';

const temp = useTempMirrors();

/** A mirror with a card whose balance is off by `skew` and a card with no journaled ISSUE. */
function world(): { l: TestLedger; skewed: TestCard; loose: TestCard } {
  const l = openLedger(temp);
  const offering = l.offering();
  const skewed = l.issue(offering, { amount: '100.00' });
  skewed.write({ balance: '99.00' });
  const loose = l.issue(offering, { journaled: false });
  loose.write();
  return { l, skewed, loose };
}

let runs = 0;
/** Reconcile the ledger's mirror as the next nightly run (at `at`, a day later by default). */
function reconcile(l: TestLedger, at?: string, codes: Parameters<typeof runOn>[1] = []) {
  runs += 1;
  return recordReconciliation(l.db, {
    runId: `recon-${runs}`,
    at: at ?? shift(READ_AT, runs * DAY),
    results: runOn(l, codes),
  });
}

const byCheck = (findings: readonly { check: string; state: string }[]) =>
  findings.map((f) => `${f.check}:${f.state}`).sort();

describe('findings over time', () => {
  it('fingerprints a finding by its code, merchant and identifying ids', () => {
    const ids = {
      cardId: 'card_1',
      transactionId: null,
      orderNo: null,
      merchantOrderNo: null,
      tradeNo: null,
      snapshotAt: null,
      offeringId: null,
    };
    const one = fingerprintOf('CARD_BALANCE_MISMATCH', 'mch_1', ids);
    expect(one).toMatch(/^[0-9a-f]{16}$/);
    expect(fingerprintOf('CARD_BALANCE_MISMATCH', 'mch_1', { ...ids, orderNo: 'x' })).toBe(one);
    expect(fingerprintOf('CARD_BALANCE_MISMATCH', 'mch_2', ids)).not.toBe(one);
    expect(fingerprintOf('NEGATIVE_BALANCE', 'mch_1', ids)).not.toBe(one);
    // ORDER_NOT_REFLECTED: the orderNo, else the merchantOrderNo (a FREEZE or UNFREEZE the
    // upstream accepted naming none).
    expect(() => fingerprintOf('ORDER_NOT_REFLECTED', 'mch_1', ids)).toThrow(/merchantOrderNo/);
    const order = { ...ids, orderNo: 'ord_1', merchantOrderNo: 'MO_1' };
    expect(fingerprintOf('ORDER_NOT_REFLECTED', 'mch_1', order)).toBe(
      fingerprintOf('ORDER_NOT_REFLECTED', 'mch_1', { ...order, merchantOrderNo: 'MO_2' }),
    );
    expect(fingerprintOf('ORDER_NOT_REFLECTED', 'mch_1', { ...order, orderNo: null })).not.toBe(
      fingerprintOf('ORDER_NOT_REFLECTED', 'mch_1', { ...ids, merchantOrderNo: 'MO_2' }),
    );
  });

  it('marks findings new, then persisting when the same data is reconciled again', () => {
    const { l } = world();
    const first = reconcile(l);
    expect(byCheck(first.current)).toEqual(['CARD_BALANCE_MISMATCH:new', 'UNJOURNALED_CARD:new']);
    const second = reconcile(l);
    expect(byCheck(second.current)).toEqual([
      'CARD_BALANCE_MISMATCH:persisting',
      'UNJOURNALED_CARD:persisting',
    ]);
    expect(second.current.map((f) => f.fingerprint).sort()).toEqual(
      first.current.map((f) => f.fingerprint).sort(),
    );
    expect(second.current.every((f) => f.firstSeenRunId === first.runId)).toBe(true);
    expect(second.current.every((f) => f.lastSeenRunId === second.runId)).toBe(true);
    expect(second.resolved).toEqual([]);
  });

  it('resolves a finding once the data is corrected, and opens it anew if it comes back', () => {
    const { l, skewed } = world();
    const first = reconcile(l);
    skewed.write();
    const fixed = reconcile(l);
    expect(byCheck(fixed.current)).toEqual(['UNJOURNALED_CARD:persisting']);
    expect(fixed.resolved.map((f) => [f.check, f.state, f.resolvedRunId, f.cardId])).toEqual([
      ['CARD_BALANCE_MISMATCH', 'resolved', fixed.runId, skewed.cardId],
    ]);
    expect(reconcile(l).resolved).toEqual([]);
    skewed.write({ balance: '97.00' });
    const back = reconcile(l);
    const balance = back.current.find((f) => f.check === 'CARD_BALANCE_MISMATCH');
    expect(balance).toMatchObject({ state: 'new', firstSeenRunId: back.runId, resolvedAt: null });
    expect(balance?.fingerprint).toBe(
      first.current.find((f) => f.cardId === skewed.cardId)?.fingerprint,
    );
    const events = l.db
      .prepare('SELECT event FROM finding_events WHERE fingerprint = ? ORDER BY rowid')
      .pluck()
      .all(balance?.fingerprint);
    expect(events).toEqual(['opened', 'resolved', 'reopened']);
  });

  it('keeps the offering a finding is about, in the store and in open_findings, until it resolves', () => {
    const l = openLedger(temp);
    const loose = l.offering({ issuanceFee: '2.005' });
    const first = reconcile(l, undefined, ['PRECISION_VIOLATION']);
    expect(first.current.map((f) => [f.check, f.state, f.offeringId, f.cardId])).toEqual([
      ['PRECISION_VIOLATION', 'new', loose.id, null],
    ]);
    expect(listFindings(l.db).map((f) => f.offeringId)).toEqual([loose.id]);
    const open = l.db.prepare('SELECT offering_id, card_id FROM open_findings').all();
    expect(open).toEqual([{ offering_id: loose.id, card_id: null }]);
    l.offering({ id: loose.id });
    const fixed = reconcile(l, undefined, ['PRECISION_VIOLATION']);
    expect(fixed.current).toEqual([]);
    expect(fixed.resolved.map((f) => [f.state, f.offeringId])).toEqual([['resolved', loose.id]]);
  });

  it('keeps a finding open, reported as it was, while its check skips its record', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '100.00' });
    card.write({ balance: '99.00' });
    const at = (days: number) => shift(READ_AT, days * DAY + HOUR);
    const night = (runId: string, days: number) =>
      recordReconciliation(l.db, {
        runId,
        at: at(days),
        results: runOn(l, ['CARD_BALANCE_MISMATCH']),
      });
    l.synced(HISTORY_AT, shift(READ_AT, -MINUTE), shift(READ_AT, MINUTE));
    const first = night('r1', 0);
    const [finding] = first.current;
    expect(finding).toMatchObject({ state: 'new', cardId: card.cardId });
    ackFinding(l.db, finding?.fingerprint as string, {
      reason: 'ticket 7',
      until: at(10),
      now: at(0),
    });
    // The next night reads the same wrong balance, but its transaction sync stops part-way: the
    // balance was read after the last fully synced transaction, so the card is skipped.
    card.write({ balance: '99.00' }, shift(READ_AT, DAY));
    const stopped = night('r2', 1);
    expect(stopped.resolved).toEqual([]);
    expect(stopped.acknowledged).toMatchObject([
      { fingerprint: finding?.fingerprint, state: 'persisting', firstSeenRunId: 'r1' },
    ]);
    // The night after completes: the same finding, still acknowledged, with its history intact.
    l.synced(shift(READ_AT, MINUTE), shift(READ_AT, 2 * DAY));
    card.write({ balance: '99.00' }, shift(READ_AT, 2 * DAY - MINUTE));
    const complete = night('r3', 2);
    expect(complete.acknowledged).toMatchObject([
      { fingerprint: finding?.fingerprint, state: 'persisting', firstSeenRunId: 'r1' },
    ]);
    const events = l.db
      .prepare('SELECT event FROM finding_events WHERE fingerprint = ? ORDER BY rowid')
      .pluck()
      .all(finding?.fingerprint);
    expect(events).toEqual(['opened', 'acknowledged']);
  });

  it('resolves an OVER_REFUND once its trade is corrected while another trade of its card is skipped', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '100.00' });
    const day = shift(HISTORY_AT, 2 * DAY);
    card.activity({ amount: '10.00', tradeNo: 'trd_over', createdAt: day });
    const refund = card.activity({
      type: 'REFUND',
      amount: '15.00',
      tradeNo: 'trd_over',
      createdAt: day,
    });
    // Another trade of the card that OVER_REFUND cannot judge (PRECISION_VIOLATION).
    card.activity({ amount: '10.005', tradeNo: 'trd_loose', createdAt: day });
    card.activity({ type: 'REFUND', amount: '1.00', tradeNo: 'trd_loose', createdAt: day });
    card.write();
    const first = reconcile(l, undefined, ['OVER_REFUND']);
    expect(first.current.map((f) => [f.check, f.tradeNo, f.state])).toEqual([
      ['OVER_REFUND', 'trd_over', 'new'],
    ]);
    // The over-refund is declined after all: the trade no longer returns more than it bought.
    l.transaction({ ...refund, status: 'DECLINED' });
    const fixed = reconcile(l, undefined, ['OVER_REFUND']);
    expect(fixed.current).toEqual([]);
    expect(fixed.resolved.map((f) => [f.check, f.tradeNo])).toEqual([['OVER_REFUND', 'trd_over']]);
  });

  it('resolves an OVER_REFUND once corrected while another card skips a trade of the same tradeNo', () => {
    const l = openLedger(temp);
    const offering = l.offering();
    const over = l.issue(offering, { amount: '100.00' });
    const loose = l.issue(offering, { amount: '100.00' });
    const day = shift(HISTORY_AT, 2 * DAY);
    // A tradeNo is the upstream's reference; nothing says two cards never share one, which is
    // why an OVER_REFUND is identified by card and tradeNo.
    over.activity({ amount: '10.00', tradeNo: 'trd_shared', createdAt: day });
    const refund = over.activity({
      type: 'REFUND',
      amount: '15.00',
      tradeNo: 'trd_shared',
      createdAt: day,
    });
    // The other card's trade of that tradeNo cannot be judged (PRECISION_VIOLATION).
    loose.activity({ amount: '10.005', tradeNo: 'trd_shared', createdAt: day });
    loose.activity({ type: 'REFUND', amount: '1.00', tradeNo: 'trd_shared', createdAt: day });
    over.write();
    loose.write();
    const first = reconcile(l, undefined, ['OVER_REFUND']);
    expect(first.current.map((f) => [f.cardId, f.tradeNo, f.state])).toEqual([
      [over.cardId, 'trd_shared', 'new'],
    ]);
    l.transaction({ ...refund, status: 'DECLINED' });
    const fixed = reconcile(l, undefined, ['OVER_REFUND']);
    expect(fixed.current).toEqual([]);
    expect(fixed.resolved.map((f) => [f.cardId, f.tradeNo])).toEqual([[over.cardId, 'trd_shared']]);
  });

  it('resolves a CURRENCY_MISMATCH of a transaction once corrected while its card is skipped', () => {
    const l = openLedger(temp);
    // A USD card of a EUR offering (a finding about the card) with a EUR purchase (one about
    // the transaction).
    const card = l.issue(l.offering({ currency: 'EUR', minLoadAmount: '10.00' }));
    const day = shift(HISTORY_AT, 2 * DAY);
    const euro = card.activity({ amount: '5.00', currency: 'EUR', createdAt: day });
    card.write();
    const first = reconcile(l, undefined, ['CURRENCY_MISMATCH']);
    expect(first.current.map((f) => [f.transactionId, f.cardId, f.state])).toEqual([
      [null, card.cardId, 'new'],
      [euro.transactionId, card.cardId, 'new'],
    ]);
    // The purchase is corrected to the card's currency; the card now names an offering the
    // mirror lacks, so the card (not its transactions) cannot be judged.
    l.transaction({ ...euro, currency: 'USD' });
    card.write({ cardOfferingId: 'off_retired' });
    const fixed = reconcile(l, undefined, ['CURRENCY_MISMATCH']);
    expect(fixed.current.map((f) => [f.transactionId, f.cardId, f.state])).toEqual([
      [null, card.cardId, 'persisting'],
    ]);
    expect(fixed.resolved.map((f) => [f.check, f.transactionId])).toEqual([
      ['CURRENCY_MISMATCH', euro.transactionId],
    ]);
  });

  it('keeps an ORPHAN_TRANSACTION open by its transaction while its card cannot be judged', () => {
    const l = openLedger(temp);
    const orphan = l.transaction({ cardId: 'card_ghost', createdAt: shift(HISTORY_AT, DAY) });
    const answer = (found: 'found' | 'not_found') =>
      l.writers.merchants.recordMissingCard('card_ghost', found, {
        merchantId: l.merchantId,
        runId: l.runId,
        observedAt: READ_AT,
      });
    answer('not_found');
    const first = reconcile(l, undefined, ['ORPHAN_TRANSACTION']);
    expect(first.current.map((f) => [f.transactionId, f.state])).toEqual([
      [orphan.transactionId, 'new'],
    ]);
    // /cards/info now finds the card, which no list shows as the merchant's: skipped.
    answer('found');
    const skipped = reconcile(l, undefined, ['ORPHAN_TRANSACTION']);
    expect(skipped.resolved).toEqual([]);
    expect(skipped.current.map((f) => [f.transactionId, f.state])).toEqual([
      [orphan.transactionId, 'persisting'],
    ]);
  });

  it('keeps a CURRENCY_MISMATCH open by its transaction while its card is not mirrored', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering());
    card.write();
    const foreign = card.activity({ currency: 'EUR', createdAt: shift(HISTORY_AT, DAY) });
    const first = reconcile(l, undefined, ['CURRENCY_MISMATCH']);
    expect(first.current.map((f) => [f.transactionId, f.state])).toEqual([
      [foreign.transactionId, 'new'],
    ]);
    // The card is no longer among the merchant's cards: its transactions cannot be judged.
    l.db.prepare('DELETE FROM cards WHERE card_id = ?').run(card.cardId);
    const skipped = reconcile(l, undefined, ['CURRENCY_MISMATCH']);
    expect(skipped.resolved).toEqual([]);
    expect(skipped.current.map((f) => [f.transactionId, f.state])).toEqual([
      [foreign.transactionId, 'persisting'],
    ]);
  });

  it('resolves nothing of a check or merchant that did not run', () => {
    const { l, skewed } = world();
    reconcile(l);
    skewed.write();
    const partial = reconcile(l, undefined, ['UNJOURNALED_CARD']);
    expect(partial.resolved).toEqual([]);
    expect(byCheck(listFindings(l.db))).toEqual([
      'CARD_BALANCE_MISMATCH:new',
      'UNJOURNALED_CARD:persisting',
    ]);
  });

  it('records each reconciliation once', () => {
    const { l } = world();
    const results = runOn(l);
    recordReconciliation(l.db, { runId: 'once', at: READ_AT, results });
    let error: unknown;
    try {
      recordReconciliation(l.db, { runId: 'once', at: READ_AT, results });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(FindingsError);
    expect((error as FindingsError).code).toBe('RUN_ALREADY_RECORDED');
    const run = l.db.prepare('SELECT * FROM recon_runs').all();
    expect(run).toEqual([
      expect.objectContaining({
        run_id: 'once',
        current_count: 2,
        new_count: 2,
        resolved_count: 0,
      }),
    ]);
  });
});

describe('acknowledging a finding', () => {
  const ackOf = (l: TestLedger, check: string) =>
    listFindings(l.db).find((f) => f.check === check)?.fingerprint as string;

  it('takes it out of the main report while its amounts stay the same', () => {
    const { l } = world();
    const first = reconcile(l);
    const fingerprint = ackOf(l, 'CARD_BALANCE_MISMATCH');
    const acked = ackFinding(l.db, fingerprint, {
      reason: 'card programme adjustment, ticket 42',
      until: shift(first.at, 30 * DAY),
      now: first.at,
    });
    expect(acked.acknowledgement).toMatchObject({
      reason: 'card programme adjustment, ticket 42',
      expected: '98.00',
      actual: '99.00',
    });
    const next = reconcile(l);
    expect(byCheck(next.current)).toEqual(['UNJOURNALED_CARD:persisting']);
    expect(next.acknowledged.map((f) => [f.fingerprint, f.state])).toEqual([
      [fingerprint, 'persisting'],
    ]);
  });

  it('brings it back when its amounts change', () => {
    const { l, skewed } = world();
    const first = reconcile(l);
    const fingerprint = ackOf(l, 'CARD_BALANCE_MISMATCH');
    ackFinding(l.db, fingerprint, {
      reason: 'known',
      until: shift(first.at, 30 * DAY),
      now: first.at,
    });
    skewed.write({ balance: '99.50' });
    const next = reconcile(l);
    expect(next.current.map((f) => f.fingerprint)).toContain(fingerprint);
    expect(next.acknowledged).toEqual([]);
    expect(next.current.find((f) => f.fingerprint === fingerprint)?.acknowledgement).toBeNull();
  });

  it('brings it back once the acknowledgement expires', () => {
    const { l } = world();
    const first = reconcile(l);
    const fingerprint = ackOf(l, 'UNJOURNALED_CARD');
    ackFinding(l.db, fingerprint, {
      reason: 'legacy card',
      until: shift(first.at, 1_000),
      now: first.at,
    });
    const next = reconcile(l, shift(first.at, 1_000));
    expect(next.current.map((f) => f.fingerprint)).toContain(fingerprint);
    const events = l.db
      .prepare('SELECT event FROM finding_events WHERE fingerprint = ? ORDER BY rowid')
      .pluck()
      .all(fingerprint);
    expect(events).toEqual(['opened', 'acknowledged', 'ack_expired']);
  });

  it('refuses an unknown or resolved finding, an empty reason and a bad or past expiry', () => {
    const { l, skewed } = world();
    const first = reconcile(l);
    const fingerprint = ackOf(l, 'CARD_BALANCE_MISMATCH');
    const codeOf = (work: () => unknown) => {
      try {
        work();
      } catch (error) {
        return [(error as FindingsError).code, (error as FindingsError).field];
      }
      return undefined;
    };
    const until = shift(first.at, DAY);
    expect(
      codeOf(() => ackFinding(l.db, 'feedfacefeedface', { reason: 'x', until, now: first.at })),
    ).toEqual(['FINDING_UNKNOWN', undefined]);
    expect(
      codeOf(() => ackFinding(l.db, fingerprint, { reason: '  ', until, now: first.at })),
    ).toEqual(['ACK_INVALID', 'reason']);
    expect(
      codeOf(() => ackFinding(l.db, fingerprint, { reason: 'x', until: 'soon', now: first.at })),
    ).toEqual(['ACK_INVALID', 'until']);
    expect(
      codeOf(() => ackFinding(l.db, fingerprint, { reason: 'x', until: first.at, now: first.at })),
    ).toEqual(['ACK_INVALID', 'until']);
    skewed.write();
    reconcile(l);
    expect(
      codeOf(() =>
        ackFinding(l.db, fingerprint, { reason: 'x', until: shift(until, DAY), now: until }),
      ),
    ).toEqual(['FINDING_RESOLVED', undefined]);
  });
});

describe('minor units beside the values', () => {
  const CUTOFF = shift(READ_AT, -MINUTE);
  let nights = 0;
  /** Reconcile `codes` of the ledger at the cutoff, as the next night's run. */
  const night = (l: TestLedger, codes: Parameters<typeof runOn>[1]) => {
    nights += 1;
    return recordReconciliation(l.db, {
      runId: `minor-${nights}`,
      at: shift(READ_AT, nights * DAY),
      results: runOn(l, codes, { cutoff: CUTOFF }),
    });
  };
  /** The findings of `check`: their values as text and, beside each, the minor units kept. */
  const values = (l: TestLedger, check: string) =>
    l.db
      .prepare(
        `SELECT state, expected, expected_minor, actual, actual_minor, delta, delta_minor
         FROM findings WHERE check_code = ? ORDER BY card_id, transaction_id, order_no`,
      )
      .raw()
      .all(check);

  it("keeps a money finding's expected, actual and delta as integer minor units of its currency", () => {
    const kwd = openLedger(temp, { currency: 'KWD' });
    const off = kwd.issue(kwd.offering(), { amount: '100.000' });
    off.write({ balance: '97.125' });
    night(kwd, ['CARD_BALANCE_MISMATCH']);
    expect(values(kwd, 'CARD_BALANCE_MISMATCH')).toEqual([
      ['new', '98.000', 98000, '97.125', 97125, '-0.875', -875],
    ]);

    // The upstream wrote the balance with fewer digits than USD has; findings show it in USD's.
    const usd = openLedger(temp);
    const below = usd.issue(usd.offering(), { amount: '100.00' });
    below.write({ balance: '-5.5' });
    night(usd, ['NEGATIVE_BALANCE', 'CARD_BALANCE_MISMATCH']);
    expect(values(usd, 'NEGATIVE_BALANCE')).toEqual([
      ['new', null, null, '-5.50', -550, null, null],
    ]);
    expect(values(usd, 'CARD_BALANCE_MISMATCH')).toEqual([
      ['new', '98.00', 9800, '-5.50', -550, '-103.50', -10350],
    ]);
  });

  it('leaves them NULL beside a status, a currency, a too precise amount or no value', () => {
    const l = openLedger(temp);
    const offering = l.offering();
    const stuck = l.issue(offering);
    stuck.switchTo('FREEZE', shift(CUTOFF, -3 * HOUR), { reflected: false });
    stuck.write();
    const card = l.issue(offering, { amount: '500.00' });
    card.activity({ amount: '5.00', currency: 'EUR', createdAt: shift(HISTORY_AT, DAY) });
    card.activity({ amount: '1.005', createdAt: shift(HISTORY_AT, DAY) });
    card.write();
    l.issue(offering, { journaled: false }).write();
    night(l, [
      'ORDER_NOT_REFLECTED',
      'CURRENCY_MISMATCH',
      'PRECISION_VIOLATION',
      'UNJOURNALED_CARD',
    ]);
    expect(values(l, 'ORDER_NOT_REFLECTED')).toEqual([
      ['new', 'FROZEN', null, 'ACTIVE', null, null, null],
    ]);
    expect(values(l, 'CURRENCY_MISMATCH')).toEqual([['new', 'USD', null, 'EUR', null, null, null]]);
    expect(values(l, 'PRECISION_VIOLATION')).toEqual([
      ['new', null, null, '1.005', null, null, null],
    ]);
    expect(values(l, 'UNJOURNALED_CARD')).toEqual([['new', null, null, null, null, null, null]]);
  });

  it('follows the values of a persisting finding, and of one that comes back', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '100.00' });
    card.write({ balance: '99.00' });
    night(l, ['CARD_BALANCE_MISMATCH']);
    card.write({ balance: '97.25' });
    night(l, ['CARD_BALANCE_MISMATCH']);
    expect(values(l, 'CARD_BALANCE_MISMATCH')).toEqual([
      ['persisting', '98.00', 9800, '97.25', 9725, '-0.75', -75],
    ]);
    card.write();
    night(l, ['CARD_BALANCE_MISMATCH']);
    card.write({ balance: '100.01' });
    night(l, ['CARD_BALANCE_MISMATCH']);
    expect(values(l, 'CARD_BALANCE_MISMATCH')).toEqual([
      ['new', '98.00', 9800, '100.01', 10001, '2.01', 201],
    ]);
  });
});
