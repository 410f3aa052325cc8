import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { CardIssuingClient, type CardIssuingClientOptions } from '../../src/api/index.js';
import { createLogger } from '../../src/log/logger.js';
import { type Mirror, openMirror } from '../../src/mirror/open-mirror.js';
import type { SandboxOptions } from '../../src/sandbox/sandbox.js';
import { runSync } from '../../src/sync/run-sync.js';
import type { SyncApi, SyncSettings } from '../../src/sync/sync-context.js';
import type { SyncResult } from '../../src/sync/sync-result.js';
import { startTestSandbox, type TestSandbox } from './test-sandbox.js';

/** Exit codes as the CLI records them. */
const EXIT_CODES = { done: 0, unauthorized: 3, incomplete: 4, interrupted: 4, busy: 5 } as const;

/** Settings small enough that a test world is split into many windows. */
export const TEST_SETTINGS: SyncSettings = {
  concurrency: 8,
  maxPagesPerWindow: 4,
  lookbackMs: 72 * 3_600_000,
  safetyLagMs: 60_000,
};

/** A sandbox with a world, a temp mirror, and a sync that runs in this process over HTTPS. */
export interface SyncWorld {
  readonly t: TestSandbox;
  readonly dir: string;
  readonly mirrorFile: string;
  /** Run one sync of every merchant into the mirror file. */
  sync(options?: {
    settings?: Partial<SyncSettings>;
    client?: Partial<CardIssuingClientOptions>;
    signal?: AbortSignal;
    mirrorFile?: string;
    /** Put something between the sync and the real client (to alter what arrives). */
    wrapApi?: (api: CardIssuingClient) => SyncApi;
    /** Where the run logs (silent unless TEST_LOG_LEVEL says otherwise). */
    logger?: Logger;
  }): Promise<SyncResult>;
  /** Open the mirror (the caller closes it). */
  openMirror(file?: string): Mirror;
  close(): Promise<void>;
}

/** The client as the sync sees it, every call passed through: spread it and override some. */
export function syncApiOf(api: CardIssuingClient): SyncApi {
  return {
    listCards: (query, options) => api.listCards(query, options),
    listTransactions: (query, options) => api.listTransactions(query, options),
    getCard: (cardId, options) => api.getCard(cardId, options),
    getMerchantBalance: (options) => api.getMerchantBalance(options),
    listOfferings: (options) => api.listOfferings(options),
    upstreamNow: () => api.upstreamNow(),
  };
}

/**
 * The client, with transaction `renamed` listed under the id of `taken` (its other fields
 * kept): two records sharing an id, of one merchant or of two.
 */
export function renamingTransaction(
  api: CardIssuingClient,
  renamed: string,
  taken: string,
): SyncApi {
  return {
    ...syncApiOf(api),
    listTransactions: async (query, options) => {
      const page = await api.listTransactions(query, options);
      page.records = page.records.map((row) =>
        row.transactionId === renamed ? { ...row, transactionId: taken } : row,
      );
      return page;
    },
  };
}

/** Start a sandbox with `options` (a world, faults, ...) and a temp dir for mirrors. */
export async function startSyncWorld(options: Partial<SandboxOptions>): Promise<SyncWorld> {
  const t = await startTestSandbox(options);
  const dir = await mkdtemp(join(tmpdir(), 'cardsync-sync-'));
  const mirrorFile = join(dir, 'mirror.sqlite');
  const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  return {
    t,
    dir,
    mirrorFile,
    sync: async (run = {}) => {
      const mirror = openMirror(run.mirrorFile ?? mirrorFile);
      const clients = t.sandbox.merchants.map(
        (m) =>
          new CardIssuingClient({
            baseUrl: t.sandbox.baseUrl,
            apiKey: m.apiKey,
            ca: t.sandbox.caPem,
            concurrency: run.settings?.concurrency ?? TEST_SETTINGS.concurrency,
            retry: { baseDelayMs: 5, maxDelayMs: 50, retryAfterCapMs: 100 },
            ...run.client,
          }),
      );
      try {
        return await runSync({
          db: mirror.db,
          sources: clients.map((api, i) => ({
            source: `m${i}`,
            baseUrl: t.sandbox.baseUrl,
            api: run.wrapApi ? run.wrapApi(api) : api,
          })),
          settings: { ...TEST_SETTINGS, ...run.settings },
          logger: run.logger ?? logger,
          signal: run.signal ?? new AbortController().signal,
          exitCodes: EXIT_CODES,
        });
      } finally {
        await Promise.all(clients.map((c) => c.close()));
        await mirror.close();
      }
    },
    openMirror: (file) => openMirror(file ?? mirrorFile),
    close: async () => {
      await t.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
