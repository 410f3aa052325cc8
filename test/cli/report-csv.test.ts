import { mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCREPANCY_COLUMNS } from '../../src/reports/finding-rows.js';
import { Database } from '../../src/sqlite-driver.js';
import { syncWithJournals } from '../runner/runner-world.js';
import { runCliProcess } from '../support/cli-process.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
import { messageLines, readCsv } from './job-fixture.js';

/**
 * Trade numbers an upstream may send (any text): formulas, a value that starts with the `'` the
 * report adds, numbers, quotes, commas, line breaks, non-ASCII.
 */
const TRADE_NOS = [
  '=x',
  "'=x",
  '-',
  "'-",
  '+5',
  '-12.50',
  '@SUM(1)',
  '=HYPERLINK("http://x","y"),\r\n"q"',
  'lone\rcarriage',
  'ｔｒａｄｅ\u3000é😀\u2028',
];

/** The documented way back from a report cell to the value: drop one leading `'`. */
const value = (cell: string) => (cell.startsWith("'") ? cell.slice(1) : cell);

describe('the report files', () => {
  let w: SyncWorld;
  let reportDir: string;
  let cardId: string;
  const reportsDir = () => join(w.dir, 'reports');
  const reconcile = () =>
    runCliProcess(['reconcile', '--json'], {
      CARDSYNC_DB: w.mirrorFile,
      CARDSYNC_REPORTS_DIR: reportsDir(),
    });
  /** Post the same purchase twice: a DUPLICATE_TRANSACTION naming `tradeNo`. */
  const plantDuplicate = async (tradeNo: string) => {
    for (let i = 0; i < 2; i++) {
      const posted = await w.t.control.post(`/_control/cards/${cardId}/transactions`, {
        type: 'PURCHASE',
        amount: '1.00',
        status: 'COMPLETED',
        tradeNo,
        force: true,
      });
      expect(posted.status).toBe(201);
    }
  };
  beforeAll(async () => {
    w = await startSyncWorld({
      seed: 'report-csv',
      merchants: 1,
      world: { cards: 12, transactions: 80, days: 5, anomaliesPerCode: 1 },
    });
    const cards = await w.t.merchants[0]!.get('/cards', { query: { page: 1, limit: 100 } });
    expect(cards.status).toBe(200);
    cardId = (cards.body as { data: { cardId: string; status: string }[] }).data.find(
      (c) => c.status === 'ACTIVE',
    )!.cardId;
    for (const tradeNo of TRADE_NOS) await plantDuplicate(tradeNo);
    await syncWithJournals(w);
    const result = await reconcile();
    expect(result.code, result.stderr).toBe(0);
    reportDir = (JSON.parse(result.stdout) as { reportDir: string }).reportDir;
  }, 60_000);
  afterAll(async () => w?.close());

  it('parses strictly to exactly the findings of the main report in the mirror', () => {
    const rows = parse(readFileSync(join(reportDir, 'discrepancies.csv')), {
      columns: true,
      // Strict, as csv-parse is by default: no stray quote, every row as wide as the header.
      relax_quotes: false,
      relax_column_count: false,
    }) as Record<string, string>[];
    const db = new Database(w.mirrorFile, { readonly: true });
    let mirrored: Record<string, unknown>[];
    try {
      mirrored = db
        .prepare('SELECT * FROM open_findings WHERE in_main_report ORDER BY fingerprint')
        .all() as Record<string, unknown>[];
    } finally {
      db.close();
    }
    const asCells = (row: Record<string, unknown>) =>
      Object.fromEntries(
        DISCREPANCY_COLUMNS.map((c) => [c, String(row[c === 'check' ? 'check_code' : c] ?? '')]),
      );
    const read = rows
      .map((row) => Object.fromEntries(Object.entries(row).map(([c, v]) => [c, value(v)])))
      .sort((a, b) => (a.fingerprint! < b.fingerprint! ? -1 : 1));
    expect(read).toEqual(mirrored.map(asCells));
    const tradeNos = read.filter((r) => r.check === 'DUPLICATE_TRANSACTION').map((r) => r.trade_no);
    for (const tradeNo of TRADE_NOS) expect(tradeNos).toContain(tradeNo);
  });

  it('records nothing when latest cannot be moved, so a new finding is still new in the next report', async () => {
    await plantDuplicate('arrived-later');
    expect((await w.sync()).outcome).toBe('done');
    const latest = join(reportsDir(), 'latest');
    renameSync(latest, `${latest}.moved`);
    mkdirSync(latest); // an operator's folder where the link should be
    const folders = readdirSync(reportsDir()).sort();
    const refused = await reconcile();
    expect(refused.code, refused.stderr).toBe(1);
    expect(messageLines(refused.stderr)).toEqual([
      `cardsync: reports: ${latest} is not a symbolic link this job made (EINVAL); move it away`,
    ]);
    expect(readdirSync(reportsDir()).sort()).toEqual(folders);
    rmdirSync(latest);
    renameSync(`${latest}.moved`, latest);
    const next = await reconcile();
    expect(next.code, next.stderr).toBe(0);
    const rows = readCsv(join(latest, 'discrepancies.csv'));
    expect(rows.filter((r) => r.trade_no === 'arrived-later').map((r) => r.state)).toEqual(['new']);
  });
});
