import { describe, expect, it } from 'vitest';
import { createMirrorWriters } from '../../src/mirror/mirror-writers.js';
import { Database } from '../../src/sqlite-driver.js';
import { context, transaction, useTempMirrors } from './mirror-fixtures.js';

const temp = useTempMirrors();

const RUN1 = context('run-1', '2026-02-01T02:00:00.000Z');
const RUN2 = context('run-2', '2026-02-02T02:00:00.000Z');

/** An analyst's connection: read-only, and no busy timeout, so any lock wait would throw. */
function openReader(file: string): Database {
  const reader = new Database(file, { readonly: true, fileMustExist: true, timeout: 0 });
  temp.defer(() => reader.close());
  expect(reader.pragma('busy_timeout', { simple: true })).toBe(0);
  return reader;
}

function setup() {
  const mirror = temp.open();
  const writers = createMirrorWriters(mirror.db);
  writers.atomically(() => writers.transactions.write([transaction({ transactionId: 'a' })], RUN1));
  const reader = openReader(mirror.file);
  const ids = reader
    .prepare('SELECT transaction_id FROM transactions ORDER BY transaction_id')
    .pluck();
  const statusOf = reader
    .prepare('SELECT status FROM transactions WHERE transaction_id = ?')
    .pluck();
  return { mirror, writers, reader, ids, statusOf };
}

describe('readers while the sync writes', () => {
  it('lets a reader without busy timeout read the committed state during an open BEGIN IMMEDIATE', () => {
    const { mirror, writers, ids, statusOf } = setup();
    mirror.db.prepare('BEGIN IMMEDIATE').run();
    writers.transactions.write(
      [
        transaction({ transactionId: 'a', status: 'COMPLETED' }),
        transaction({ transactionId: 'b' }),
      ],
      RUN2,
    );
    expect(mirror.db.inTransaction).toBe(true);

    expect(ids.all()).toEqual(['a']);
    expect(statusOf.get('a')).toBe('PENDING');

    mirror.db.prepare('COMMIT').run();
    expect(ids.all()).toEqual(['a', 'b']);
    expect(statusOf.get('a')).toBe('COMPLETED');
  });

  it('lets a reader read inside an atomically() window commit and see nothing of a rollback', () => {
    const { writers, ids } = setup();
    expect(() =>
      writers.atomically(() => {
        writers.transactions.write([transaction({ transactionId: 'b' })], RUN2);
        expect(ids.all()).toEqual(['a']);
        throw new Error('window failed');
      }),
    ).toThrow('window failed');
    expect(ids.all()).toEqual(['a']);
  });

  it('lets the writer commit while a reader holds an open snapshot, which stays consistent', () => {
    const { writers, reader, ids } = setup();
    reader.prepare('BEGIN').run();
    expect(ids.all()).toEqual(['a']);

    writers.atomically(() =>
      writers.transactions.write([transaction({ transactionId: 'b' })], RUN2),
    );

    expect(ids.all()).toEqual(['a']);
    reader.prepare('COMMIT').run();
    expect(ids.all()).toEqual(['a', 'b']);
  });

  it('refuses writes on the analyst connection, so a reader cannot disturb the mirror', () => {
    const { reader } = setup();
    expect(() =>
      reader.prepare("DELETE FROM transactions WHERE transaction_id = 'a'").run(),
    ).toThrow(/readonly/);
  });
});
