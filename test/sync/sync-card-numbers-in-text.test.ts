import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeCard, postForced } from '../support/forced-transactions.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

describe('a valid transaction whose free text holds a card number', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-card-numbers-in-text',
      world: { cards: 5, transactions: 40, days: 5, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('is mirrored with the number taken out of its merchant name, the rest of the name kept', async () => {
    const cardId = activeCard(w.t);
    const number = w.t.sandbox.context.store.db
      .prepare('SELECT card_number FROM cards WHERE card_id = ?')
      .pluck()
      .get(cardId) as string;
    // A processor that puts the card's number in the descriptor: the record is valid all the same.
    const grouped = number.replace(/(\d{4})(?=\d)/g, '$1 ');
    const transactionId = await postForced(w.t, cardId, {
      type: 'PURCHASE',
      status: 'COMPLETED',
      amount: '1.00',
      createdAt: w.t.sandbox.context.clock.now() - 3_600_000,
      merchantName: `ACME *${grouped}`,
    });

    const result = await w.sync();
    expect(result.outcome).toBe('done');
    const mirror = w.openMirror();
    try {
      const name = mirror.db
        .prepare('SELECT merchant_name FROM transactions WHERE transaction_id = ?')
        .pluck()
        .get(transactionId);
      expect(name).toBe('ACME *[redacted]');
    } finally {
      await mirror.close();
    }
    for (const file of [w.mirrorFile, `${w.mirrorFile}-wal`].filter((f) => existsSync(f)))
      expect(readFileSync(file).includes(grouped)).toBe(false);
  });
});
