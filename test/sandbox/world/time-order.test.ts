import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log/logger.js';
import { startSandbox } from '../../../src/sandbox/sandbox.js';
import { Database } from '../../../src/sqlite-driver.js';

const WORLD = { cards: 150, transactions: 3_000, days: 60, anomaliesPerCode: 1 } as const;

describe('a generated world stores its transactions in time order', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('keeps every row, in createdAt order, and each transaction id once', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'cardsync-time-order-'));
    dirs.push(stateDir);
    const sandbox = await startSandbox({
      logger: createLogger({ level: 'silent' }),
      stateDir,
      seed: 'time-order',
      world: WORLD,
    });
    const generated = sandbox.world?.transactions;
    await sandbox.close();

    const db = new Database(join(stateDir, 'sandbox.sqlite'));
    try {
      const rows = db
        .prepare(
          'SELECT created_at AS createdAt, transaction_id AS id FROM transactions ORDER BY rowid',
        )
        .all() as { createdAt: number; id: string }[];
      expect(generated).toBeGreaterThanOrEqual(WORLD.transactions);
      expect(rows.length).toBeGreaterThanOrEqual(WORLD.transactions);
      const sorted = [...rows].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
      expect(rows).toEqual(sorted);
      // A bulk load lands them card by card: the order above is the re-ordering's doing.
      const cards = db.prepare('SELECT card_id FROM transactions ORDER BY rowid').pluck().all();
      const runs = cards.filter((card, i) => i > 0 && card !== cards[i - 1]).length;
      expect(runs).toBeGreaterThan(WORLD.cards);

      const first = db.prepare('SELECT * FROM transactions ORDER BY rowid LIMIT 1').get() as Record<
        string,
        unknown
      >;
      const columns = Object.keys(first);
      expect(() =>
        db
          .prepare(
            `INSERT INTO transactions (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
          )
          .run(...columns.map((c) => first[c])),
      ).toThrow(/UNIQUE constraint failed: transactions.transaction_id/);
    } finally {
      db.close();
    }
  }, 30_000);
});
