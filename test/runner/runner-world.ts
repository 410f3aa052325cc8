import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CardIssuingClient } from '../../src/api/index.js';
import { importOrderFile } from '../../src/journal/order-import.js';
import { createLogger } from '../../src/log/logger.js';
import type { SqliteDatabase } from '../../src/mirror/sqlite-database.js';
import { DEFAULT_RECON_SETTINGS } from '../../src/recon/recon-settings.js';
import {
  type NightlyRunOptions,
  type NightlyRunResult,
  runNightly,
} from '../../src/runner/nightly-run.js';
import { type SyncWorld, TEST_SETTINGS } from '../support/sync-harness.js';

export const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** The sync's exit codes as the CLI records them. */
export const SYNC_EXIT_CODES = {
  done: 0,
  unauthorized: 3,
  incomplete: 4,
  interrupted: 4,
  busy: 5,
} as const;

/** A small world with one of every plantable anomaly per merchant. */
export const ANOMALOUS_WORLD = {
  merchants: 2,
  currencies: ['USD', 'JPY'],
  world: { cards: 50, transactions: 500, days: 20, anomaliesPerCode: 1 },
} as const;

/** Import every merchant's journal into the mirror. */
export async function importJournals(w: SyncWorld, db: SqliteDatabase): Promise<void> {
  for (const merchant of w.t.sandbox.merchants)
    await importOrderFile(db, { file: merchant.journalFile!, merchantId: merchant.merchantId });
}

/** Sync `w` once, which must end done, then import every merchant's journal into its mirror. */
export async function syncWithJournals(w: SyncWorld): Promise<void> {
  const synced = await w.sync();
  if (synced.outcome !== 'done') throw new Error(`the sync ended ${synced.outcome}, not done`);
  const mirror = w.openMirror();
  try {
    await importJournals(w, mirror.db);
  } finally {
    await mirror.close();
  }
}

/** The ground-truth manifest's findings. */
export async function plantedFindings(w: SyncWorld): Promise<{ check: string }[]> {
  const manifest = JSON.parse(await readFile(w.t.sandbox.groundTruthFile!, 'utf8')) as {
    findings: { check: string }[];
  };
  return manifest.findings;
}

/**
 * Run the nightly job in this process against the world, with fast retries; `apiKeys` replaces
 * the keys of the merchants it names by index (a key the upstream refuses).
 */
export async function nightly(
  w: SyncWorld,
  db: SqliteDatabase,
  options: Partial<NightlyRunOptions> = {},
  apiKeys: Readonly<Record<number, string>> = {},
): Promise<NightlyRunResult> {
  const clients = w.t.sandbox.merchants.map(
    (m, i) =>
      new CardIssuingClient({
        baseUrl: w.t.sandbox.baseUrl,
        apiKey: apiKeys[i] ?? m.apiKey,
        ca: w.t.sandbox.caPem,
        retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20, retryAfterCapMs: 50 },
      }),
  );
  try {
    return await runNightly({
      db,
      sources: clients.map((api, i) => ({ source: `m${i}`, baseUrl: w.t.sandbox.baseUrl, api })),
      syncSettings: TEST_SETTINGS,
      reconSettings: DEFAULT_RECON_SETTINGS,
      reportsDir: join(w.dir, 'reports'),
      logger,
      signal: new AbortController().signal,
      syncExitCodes: SYNC_EXIT_CODES,
      exitCodeOf: ({ sync }) => SYNC_EXIT_CODES[sync.outcome],
      ...options,
    });
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}
