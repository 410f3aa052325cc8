import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/sqlite-driver.js';
import { type RewritingRelay, startRewritingRelay } from '../support/rewriting-relay.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

/** What the relay writes in place of a transaction's amount and fee, and adds: JSON numbers. */
const NUMBERS = '"amount":12.50,"fee":9007199254740993,"rate":1e400,"cardNumber":4111111111111111';

/**
 * `body` with transaction `id`'s amount and fee sent as JSON numbers (and two more numbers
 * added), and that record's text as sent; the body unchanged when it does not list `id`.
 */
function breakTransaction(body: string, id: string): { body: string; sent?: string } {
  const at = body.indexOf(`{"transactionId":"${id}"`);
  if (at < 0) return { body };
  const end = body.indexOf('}', at) + 1;
  const sent = body
    .slice(at, end)
    .replace(/"amount":"[^"]*"/, NUMBERS)
    .replace(/,"fee":"[^"]*"/, '');
  return { body: body.slice(0, at) + sent + body.slice(end), sent };
}

describe('a malformed record quarantined from a page', () => {
  let w: SyncWorld;
  let relay: RewritingRelay;
  let id: string;
  let sent: string | undefined;
  let balanceSent: string | undefined;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-quarantine-exact-numbers',
      world: { cards: 10, transactions: 150, days: 5, anomaliesPerCode: 0 },
    });
    id = w.t.sandbox.context.store.db
      .prepare('SELECT transaction_id FROM transactions WHERE posted = 1 ORDER BY transaction_id')
      .pluck()
      .get() as string;
    relay = await startRewritingRelay(w.t.sandbox.baseUrl, w.t.sandbox.caPem, (path, body) => {
      if (path.endsWith('/transactions')) {
        const broken = breakTransaction(body, id);
        sent ??= broken.sent;
        return broken.body;
      }
      if (path.endsWith('/merchants/balance')) {
        const broken = body.replace(/"balance":"[^"]*"/, '"balance":1000.10');
        balanceSent = broken.slice(broken.indexOf('{', 1), broken.lastIndexOf('}'));
        return broken;
      }
      return body;
    });
  });
  afterAll(async () => {
    await relay?.close();
    await w?.close();
  });

  it('keeps its numbers as the upstream wrote them (12.50, 9007199254740993, 1e400), not as JSON.parse read them (12.5, 9007199254740992, null)', async () => {
    const result = await w.sync({ client: { baseUrl: relay.baseUrl, ca: relay.caPem } });
    expect(result.outcome).toBe('done');
    expect(sent).toContain('"amount":12.50');
    const db = new Database(w.mirrorFile, { readonly: true });
    try {
      const raw = (resource: string) =>
        db
          .prepare('SELECT raw_json FROM quarantine WHERE resource = ? ORDER BY quarantine_id')
          .pluck()
          .all(resource) as string[];
      // The record's whole text as sent, its card number (a JSON number too) redacted.
      expect(raw('transactions')).toEqual([
        sent?.replace('"cardNumber":4111111111111111', '"cardNumber":"[redacted]"'),
      ]);
      // A single-record answer (the merchant balance) keeps its text as sent too.
      expect(balanceSent).toContain('"balance":1000.10');
      expect(raw('merchant_balance')).toEqual([balanceSent]);
    } finally {
      db.close();
    }
  }, 60_000);
});
