import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/** What the reader process saw. */
export interface ReaderReport {
  readonly queries: number;
  readonly opens: number;
  readonly errors: string[];
}

// An analyst's tool: opens the file read-only with no busy timeout, queries in a loop and
// reopens now and then, counting every error (SQLITE_BUSY above all).
const SCRIPT = `
const Database = require(process.env.BETTER_SQLITE3);
const file = process.env.MIRROR_FILE;
let queries = 0, opens = 0; const errors = [];
let db = null; let stop = false;
process.stdin.on('data', () => { stop = true; });
process.stdin.on('end', () => { stop = true; });
const fs = require('node:fs');
function tick() {
  if (stop) { try { db && db.close(); } catch {} process.stdout.write(JSON.stringify({ queries, opens, errors }) + '\\n'); return; }
  try {
    if (fs.existsSync(file)) {
      if (!db || queries % 50 === 0) { if (db) db.close(); db = new Database(file, { readonly: true, fileMustExist: true }); opens++; }
      const has = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'transactions'").get().n;
      if (has) {
        db.prepare('SELECT count(*), sum(amount_minor) FROM transactions').get();
        db.prepare('SELECT c.card_id, count(t.transaction_id) FROM cards c LEFT JOIN transactions t ON t.card_id = c.card_id GROUP BY c.card_id LIMIT 50').all();
      }
      queries++;
    }
  } catch (error) { errors.push(String(error && error.code || error)); }
  setTimeout(tick, 2);
}
tick();
`;

/** A separate process reading the mirror until {@link stopReader}. */
export function startReader(mirrorFile: string, betterSqlite3: string): ChildProcess {
  return spawn(process.execPath, ['-e', SCRIPT], {
    env: { ...process.env, MIRROR_FILE: mirrorFile, BETTER_SQLITE3: betterSqlite3 },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
}

/** Tell the reader to stop and collect its report. */
export async function stopReader(child: ChildProcess): Promise<ReaderReport> {
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stdin?.end('stop\n');
  await once(child, 'close');
  return JSON.parse(out) as ReaderReport;
}
