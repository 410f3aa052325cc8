import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server as HttpsServer } from 'node:https';
import { type AddressInfo, isIPv6, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { currencyExponent } from '../money/currency.js';
import { VERSION } from '../version.js';
import { CLOCK_OFFSET_KEY, MovableClock } from './clock.js';
import { DueEvents } from './due-events.js';
import { FaultLab } from './faults/fault-lab.js';
import type { FaultRule } from './faults/fault-rule.js';
import { buildApp } from './http/app.js';
import { createDualListener } from './http/transport.js';
import { IdGenerator } from './random/id-generator.js';
import type { ProcessingMode, SandboxContext } from './sandbox-context.js';
import { openSandboxDatabase, readMeta, SandboxStateError, writeMeta } from './store/database.js';
import { SandboxStore } from './store/sandbox-store.js';
import { loadTlsMaterial } from './tls/certificates.js';
import { type GeneratedWorld, generateWorld, type WorldOptions } from './world/generate-world.js';
import { createInitialWorld, type MerchantAccess } from './world/initial-world.js';
import { MovingWorld, PLANTED_CARDS_KEY } from './world/moving-world.js';

/** The `meta` key that says whether a generated world is complete. */
const WORLD_STATE_KEY = 'world';

/** How to start the sandbox. Every field has a default. */
export interface SandboxOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  readonly port?: number;
  /** Address to listen on; loopback by default. */
  readonly host?: string;
  /** Seed of every deterministic choice (ids, card details, outcomes). */
  readonly seed?: string;
  /** Merchant accounts to create in a fresh state (default 2). */
  readonly merchants?: number;
  /** Their currencies, assigned in turn (default USD). */
  readonly currencies?: readonly string[];
  /** Where state survives restarts; in memory when absent. */
  readonly stateDir?: string;
  /** Milliseconds before an order is processed (default 250), or 'manual' to process only on demand. */
  readonly processingDelayMs?: number | 'manual';
  /** Share of money orders that fail (default 0). */
  readonly failureRate?: number;
  /** Enable the control surface (default false). */
  readonly control?: boolean;
  /** Requests per second per API key before 429s (default: unlimited). */
  readonly rateLimitPerSecond?: number;
  /** Fault lab rules to start with (docs/sandbox.md); none by default. */
  readonly faults?: readonly FaultRule[];
  /** Keep the world moving: this many new transactions and status changes per second. */
  readonly activityPerSecond?: number;
  /** Generate a seeded history into a fresh state (ignored when the state already has cards). */
  readonly world?: Omit<WorldOptions, 'outDir'>;
  /** The wall clock the service clock runs on (default `Date.now`); tests pin it to reproduce a world. */
  readonly wallClock?: () => number;
  /**
   * Abandons the start: a world being generated stops between two batches and the returned
   * promise rejects with the signal's reason. A state directory left that way is refused later.
   */
  readonly signal?: AbortSignal;
  readonly logger: Logger;
}

/** A running sandbox: where it is, who may use it, and how to stop it. */
export interface RunningSandbox {
  readonly baseUrl: string;
  readonly caFile: string;
  readonly caPem: string;
  /** The merchants, each with its order journal file when a world was generated. */
  readonly merchants: readonly (MerchantAccess & { journalFile?: string })[];
  /** The generated world's ground-truth manifest, when anomalies were planted. */
  readonly groundTruthFile: string | null;
  readonly world: GeneratedWorld | null;
  readonly stateDir: string | null;
  /** The control surface's token when enabled. */
  readonly controlToken: string | null;
  readonly seed: string;
  /** The fault lab, also driven through `/_control/faults`. */
  readonly faults: FaultLab;
  /** The domain state, for in-process tests and the world generator. */
  readonly context: SandboxContext;
  /** The moving world, when `activityPerSecond` was set. */
  readonly movingWorld: MovingWorld | null;
  /** The OpenAPI 3.1 document served at `/openapi.json`. */
  openApiDocument(): Record<string, unknown>;
  close(): Promise<void>;
}

/**
 * Start the embedded card-issuing service over HTTPS.
 * @example
 * const sandbox = await startSandbox({ logger, control: true, processingDelayMs: 'manual' });
 * // ... https requests to sandbox.baseUrl trusting sandbox.caFile ...
 * await sandbox.close();
 */
export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const logger = options.logger;
  for (const currency of options.currencies ?? []) currencyExponent(currency);
  // The first folder this start makes (the state directory, or a missing parent of it): a start
  // that fails or is stopped removes it again, since a half-made state (merchants, seed, a world
  // marked as generating) would change what the next start in the same place does. A state
  // directory that was there before is left as it is.
  const created = options.stateDir
    ? await mkdir(options.stateDir, { recursive: true, mode: 0o700 })
    : undefined;
  // Files of a run without a state directory (CA, journals, manifest) live in a temporary one.
  const workDir = options.stateDir ?? (await mkdtemp(join(tmpdir(), 'cardsync-sandbox-')));
  const removeWorkDir = async () => {
    if (!options.stateDir) await rm(workDir, { recursive: true, force: true });
  };
  const undoStart = async () => {
    await removeWorkDir();
    if (created !== undefined) await rm(created, { recursive: true, force: true });
  };
  let db: ReturnType<typeof openSandboxDatabase>;
  try {
    db = openSandboxDatabase(
      options.stateDir ? join(options.stateDir, 'sandbox.sqlite') : undefined,
    );
  } catch (error) {
    await undoStart();
    throw error;
  }
  try {
    if (readMeta(db, WORLD_STATE_KEY) === 'generating') {
      throw new SandboxStateError(
        'SANDBOX_STATE_INCOMPLETE',
        'the world generation in this state directory was interrupted; delete it and start again',
      );
    }
    const storedSeed = readMeta(db, 'seed');
    const seed = storedSeed ?? options.seed ?? 'cardsync';
    if (storedSeed && options.seed && storedSeed !== options.seed) {
      logger.warn(
        { storedSeed, requestedSeed: options.seed },
        'state directory keeps its own seed; --seed ignored',
      );
    }
    writeMeta(db, 'seed', seed);
    const faults = new FaultLab(seed, options.faults ?? []);
    const clock = new MovableClock(
      Number(readMeta(db, CLOCK_OFFSET_KEY) ?? '0'),
      options.wallClock,
    );
    const store = new SandboxStore(db);
    const processing: ProcessingMode =
      options.processingDelayMs === 'manual'
        ? { kind: 'manual' }
        : { kind: 'delay', ms: options.processingDelayMs ?? 250 };
    const ctx: SandboxContext = {
      store,
      clock,
      ids: new IdGenerator(db, seed),
      seed,
      processing,
      failureRate: options.failureRate ?? 0,
      logger,
    };
    const existing = store.merchants.list();
    const merchants: MerchantAccess[] =
      existing.length > 0
        ? existing.map((m) => ({
            merchantId: m.merchantId,
            apiKey: store.merchants.currentKey(m.merchantId) ?? '',
            currency: m.currency,
          }))
        : createInitialWorld(ctx, {
            merchants: options.merchants ?? 2,
            currencies: options.currencies ?? ['USD'],
          });

    const fresh = store.db.prepare('SELECT count(*) AS n FROM cards').get() as { n: number };
    const world =
      options.world && fresh.n === 0
        ? await generateWorldFiles(ctx, {
            ...options.world,
            outDir: workDir,
            ...(options.signal ? { signal: options.signal } : {}),
          })
        : null;
    if (options.world && !world) logger.warn('state already holds cards; no world generated');

    store.buildIndexes();
    const tls = await loadTlsMaterial(join(workDir, 'tls'), Boolean(options.stateDir));
    const events = new DueEvents(ctx);
    const moving = options.activityPerSecond
      ? new MovingWorld(ctx, events, options.activityPerSecond)
      : undefined;
    const controlToken = options.control ? randomBytes(24).toString('hex') : undefined;
    const closing = new AbortController();
    const app = await buildApp({
      ctx,
      clock,
      events,
      logger,
      tls: { key: tls.keyPem, cert: tls.certPem },
      controlToken,
      rateLimit: options.rateLimitPerSecond ? { perSecond: options.rateLimitPerSecond } : undefined,
      faults,
      closing: closing.signal,
    });
    const sockets = new Set<Socket>();
    const listener = createDualListener(app.server as unknown as HttpsServer, VERSION);
    listener.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(options.port ?? 0, host, () => resolve());
    });
    events.runDue();
    moving?.start();
    const { port } = listener.address() as AddressInfo;
    // An IPv6 address goes in brackets (RFC 3986): `https://::1:8443` is no URL at all.
    const urlHost =
      host === '127.0.0.1' || host === '0.0.0.0' || host === '::'
        ? 'localhost'
        : isIPv6(host)
          ? `[${host}]`
          : host;
    logger.info(
      { port, stateDir: options.stateDir ?? null, merchants: merchants.length },
      'sandbox listening',
    );

    let closed = false;
    return {
      baseUrl: `https://${urlHost}:${port}`,
      caFile: tls.caFile,
      caPem: tls.caPem,
      merchants: merchants.map((m) => {
        const journalFile = world?.journalFiles[m.merchantId];
        return journalFile ? { ...m, journalFile } : m;
      }),
      groundTruthFile: world?.groundTruthFile ?? null,
      world,
      stateDir: options.stateDir ?? null,
      controlToken: controlToken ?? null,
      seed,
      faults,
      context: ctx,
      movingWorld: moving ?? null,
      openApiDocument: () => app.swagger() as unknown as Record<string, unknown>,
      close: async () => {
        if (closed) return;
        closed = true;
        closing.abort();
        moving?.stop();
        events.close();
        await new Promise<void>((resolve) => {
          listener.close(() => resolve());
          for (const socket of sockets) socket.destroy();
        });
        await app.close();
        db.close();
        await removeWorkDir();
      },
    };
  } catch (error) {
    if (db.open) db.close();
    await undoStart();
    throw error;
  }
}

/** Generate a world and write its ground-truth manifest next to the journals. */
async function generateWorldFiles(
  ctx: SandboxContext,
  options: WorldOptions,
): Promise<GeneratedWorld> {
  const started = Date.now();
  ctx.logger.info(
    { cards: options.cards, transactions: options.transactions, days: options.days },
    'generating world',
  );
  // Marked until done: a generation stopped half way leaves a state no restart should serve.
  writeMeta(ctx.store.db, WORLD_STATE_KEY, 'generating');
  const world = await generateWorld(ctx, options);
  writeMeta(ctx.store.db, WORLD_STATE_KEY, 'generated');
  if (world.groundTruthFile && world.groundTruth) {
    // Kept in the state, so a moving world started on it later (a restart) leaves them alone too.
    const planted = new Set(
      world.groundTruth.findings.flatMap((f) => (f.cardId ? [f.cardId] : [])),
    );
    writeMeta(ctx.store.db, PLANTED_CARDS_KEY, JSON.stringify([...planted]));
    await writeFile(world.groundTruthFile, `${JSON.stringify(world.groundTruth, null, 2)}\n`);
  }
  ctx.logger.info(
    {
      cards: world.cards,
      transactions: world.transactions,
      orders: world.orders,
      ms: Date.now() - started,
    },
    'world generated',
  );
  return world;
}
