import { spawn } from 'node:child_process';
import { Database } from '../src/sqlite-driver.js';

/** The reconciliation of a synced mirror, timed against one grouped pass over its rows. */
export interface ReconAtScale {
  /** `cardsync orders import` of the merchant's journal, in seconds. */
  readonly importSeconds: number;
  /** `cardsync reconcile --json`: checks, findings recorded, reports written (process wall time). */
  readonly reconcileSeconds: number;
  /** The reconciliation's own duration as it reports it (without node start-up). */
  readonly reconcileInnerSeconds: number;
  /**
   * One grouped SQL pass over the transactions table (card, type, status; counts and sums), as
   * SQLite plans it: it walks `transactions_by_card` to group without sorting.
   */
  readonly groupedPassSeconds: number;
  /** The same pass forced to scan the table and sort (`NOT INDEXED`): faster here, reported too. */
  readonly groupedScanSeconds: number;
  readonly transactions: number;
  readonly cards: number;
  readonly orders: number;
  readonly findings: number;
}

/** Options of {@link reconcileAtScale}. */
export interface ReconAtScaleOptions {
  readonly cliMain: string;
  readonly db: string;
  readonly reportsDir: string;
  readonly journalFile: string;
  readonly merchantId: string;
}

// The baseline the reconciliation is held to: every transaction read once, grouped and summed.
const GROUPED_PASS = `SELECT card_id, type, status, count(*) AS n, sum(amount_minor) AS amount,
  sum(fee_minor) AS fee FROM transactions GROUP BY card_id, type, status`;
const GROUPED_SCAN = GROUPED_PASS.replace('FROM transactions', 'FROM transactions NOT INDEXED');

/**
 * Import the journal, then time one grouped pass over the transactions table and a whole
 * `cardsync reconcile` on the same mirror, one after the other, as separate processes for the
 * CLI steps (the way an operator runs them).
 */
export async function reconcileAtScale(options: ReconAtScaleOptions): Promise<ReconAtScale> {
  const env = cliEnv(options);
  let started = performance.now();
  await runCli(
    options.cliMain,
    ['orders', 'import', options.journalFile, '--merchant', options.merchantId, '--json'],
    env,
  );
  const importSeconds = (performance.now() - started) / 1000;

  const db = new Database(options.db, { readonly: true });
  let counts: { transactions: number; cards: number; orders: number };
  let groupedPassSeconds: number;
  let groupedScanSeconds: number;
  try {
    counts = db
      .prepare(
        `SELECT (SELECT count(*) FROM transactions) AS transactions,
           (SELECT count(*) FROM cards) AS cards, (SELECT count(*) FROM orders) AS orders`,
      )
      .get() as typeof counts;
    started = performance.now();
    db.prepare(GROUPED_PASS).all();
    groupedPassSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    db.prepare(GROUPED_SCAN).all();
    groupedScanSeconds = (performance.now() - started) / 1000;
  } finally {
    db.close();
  }

  started = performance.now();
  const output = await runCli(options.cliMain, ['reconcile', '--json'], env);
  const reconcileSeconds = (performance.now() - started) / 1000;
  const result = JSON.parse(output) as { durationMs?: number; counts?: { current?: number } };
  return {
    importSeconds,
    reconcileSeconds,
    reconcileInnerSeconds: (result.durationMs ?? Number.NaN) / 1000,
    groupedPassSeconds,
    groupedScanSeconds,
    ...counts,
    findings: result.counts?.current ?? Number.NaN,
  };
}

function cliEnv(options: ReconAtScaleOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith('CARDSYNC_')) env[name] = value;
  return { ...env, CARDSYNC_DB: options.db, CARDSYNC_REPORTS_DIR: options.reportsDir };
}

function runCli(cliMain: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliMain, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`cardsync ${args[0]} exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
}
