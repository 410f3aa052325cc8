import { describe, expect, it } from 'vitest';
import { useTempMirrors } from '../support/temp-mirrors.js';

/** A column as `pragma_table_info` gives it. */
interface Column {
  readonly name: string;
  readonly type: string;
  readonly notnull: number;
  readonly pk: number;
}

/** job-interface.md, "The mirror": each upstream table and its key. */
const KEYED_TABLES: readonly [string, string][] = [
  ['cards', 'card_id'],
  ['transactions', 'transaction_id'],
  ['offerings', 'id'],
  ['orders', 'merchant_order_no'],
];

/** A money column by its name: `amount`, `fee`, `balance`, `issuance_fee`, `min_load_amount`... */
const MONEY = /(^|_)(amount|fee|balance)$/;

describe('the mirror, as job-interface.md names it for analysts', () => {
  const temp = useTempMirrors('cardsync-mirror-interface-');

  const columns = (table: string): Column[] =>
    temp.mirror.db
      .prepare('SELECT name, type, "notnull", pk FROM pragma_table_info(?)')
      .all(table) as Column[];
  const objects = (type: 'table' | 'view'): string[] =>
    temp.mirror.db
      .prepare("SELECT name FROM sqlite_master WHERE type = ? AND name NOT LIKE 'sqlite_%'")
      .pluck()
      .all(type) as string[];

  it('keys cards, transactions, offerings and orders by their upstream id, merchant_id on every row', () => {
    for (const [table, key] of KEYED_TABLES) {
      const cols = columns(table);
      expect({ table, pk: cols.filter((c) => c.pk > 0).map((c) => c.name) }).toEqual({
        table,
        pk: [key],
      });
      expect({ table, merchantId: cols.find((c) => c.name === 'merchant_id') }).toMatchObject({
        merchantId: { type: 'TEXT', notnull: 1 },
      });
    }
  });

  it('keeps one merchant_balances row per snapshot, and the run and progress tables', () => {
    const cols = columns('merchant_balances');
    expect(cols.find((c) => c.pk > 0)).toMatchObject({ name: 'snapshot_id', type: 'INTEGER' });
    expect(cols.find((c) => c.name === 'merchant_id')).toMatchObject({ notnull: 1 });
    expect(objects('table')).toEqual(expect.arrayContaining(['sync_runs', 'sync_progress']));
  });

  it('gives every money column of a table exact decimal text and an INTEGER *_minor beside it', () => {
    let pairs = 0;
    for (const table of objects('table')) {
      const cols = columns(table);
      const byName = new Map(cols.map((c) => [c.name, c]));
      for (const c of cols) {
        if (MONEY.test(c.name)) {
          expect({ table, column: c.name, type: c.type }).toEqual({
            table,
            column: c.name,
            type: 'TEXT',
          });
          expect({ table, minor: byName.get(`${c.name}_minor`)?.type }).toEqual({
            table,
            minor: 'INTEGER',
          });
          pairs += 1;
        }
        if (c.name.endsWith('_minor')) {
          const text = c.name.slice(0, -'_minor'.length);
          expect({ table, column: c.name, type: c.type, text: byName.get(text)?.type }).toEqual({
            table,
            column: c.name,
            type: 'INTEGER',
            text: 'TEXT',
          });
        }
      }
    }
    // cards, card_history, merchant_balances: balance; transactions: amount and fee; orders:
    // amount; offerings and offering_versions: three terms each.
    expect(pairs).toBeGreaterThanOrEqual(12);
  });

  it('gives every money column of a view its *_minor beside it', () => {
    for (const view of objects('view')) {
      const names = new Set(columns(view).map((c) => c.name));
      for (const name of names)
        if (MONEY.test(name))
          expect({ view, name, minor: names.has(`${name}_minor`) }).toEqual({
            view,
            name,
            minor: true,
          });
    }
  });

  it('stores timestamps as text', () => {
    for (const table of objects('table'))
      for (const c of columns(table))
        if (c.name.endsWith('_at'))
          expect({ table, column: c.name, type: c.type }).toEqual({
            table,
            column: c.name,
            type: 'TEXT',
          });
  });
});
