/**
 * The performance section, end to end: a full sync of a large world into a fresh mirror
 * against its two limits measured in the same run (fetch and parse only; upsert only), a nightly
 * incremental run after 1% new rows, the throughput of a first sync of the same world under 50 ms
 * of added latency (at concurrency 16, and at the default concurrency, where the two cores are
 * not yet the limit), and the sync process's peak RSS at 1M and 3M transactions. Beside the
 * latency and incremental runs, the same pages fetched and parsed only, and under latency a plain
 * client that only reads the bodies: what the upstream and the network allow before the sync's
 * own work. The sandbox and the sync run as separate processes so each has a core. Run with
 * `npm run bench:sync`.
 *
 * BENCH_SCALE=0.05 shrinks every world for a quick smoke; BENCH_SKIP_3M=1 skips the 3M world;
 * BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each sync child there.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';
import { SYNC_BOUNDS } from '../src/config/sync-settings.js';
import { processCpuSeconds } from './cpu-time.js';
import { type FetchOnlyResult, fetchOnly } from './fetch-only.js';
import { type PlainClientResult, plainClient, recordRequests } from './plain-client.js';
import { type PostedTransactions, postNewTransactions } from './post-transactions.js';
import { type ReconAtScale, reconcileAtScale } from './recon-at-scale.js';
import { formatResultsTable, type ResultRow, type ResultSection } from './results-table.js';
import {
  type SandboxAnnouncement,
  type SandboxProcess,
  startSandboxProcess,
} from './sandbox-process.js';
import { runTimedSync, type TimedSync } from './timed-sync.js';
import { type MirrorModules, type UpsertOnlyResult, upsertOnly } from './upsert-only.js';

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const SKIP_3M = process.env.BENCH_SKIP_3M === '1';
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROF;
if (!(SCALE > 0)) throw new Error(`BENCH_SCALE must be a positive number, got ${SCALE}`);

const CONCURRENCY = 16;
/** What `cardsync sync` runs with when no flag or file sets it. */
const DEFAULT_CONCURRENCY = SYNC_BOUNDS.concurrency.default;
const PAGE_SIZE = 100;
const MAX_PAGES_PER_WINDOW = 20;
const LOOKBACK_MS = 72 * 3_600_000;
const SAFETY_LAG_MS = 60_000;
const LATENCY_MS = 50;
const DAYS = 365;
const NEW_ROWS_SHARE = 0.01;
/** The 300 MB, read strictly as 300 x 10^6 bytes (286 MiB). */
const RSS_GOAL_BYTES = 300e6;

const scaled = (n: number) => Math.max(1, Math.round(n * SCALE));
const WORLD = { cards: scaled(100_000), transactions: scaled(1_000_000) };
const BIG_WORLD = { cards: scaled(300_000), transactions: scaled(3_000_000) };

const root = fileURLToPath(new URL('../../', import.meta.url));
const cliMain = join(root, 'dist/cli/main.js');
const resultFile = join(root, '.bench-dist/sync-scale.json');

// The mirror opens its migrations relative to its own module, so it is loaded from the build
// the CLI runs (dist/), not from this bench's copy of src/.
async function loadMirrorModules(): Promise<MirrorModules> {
  const load = (path: string) => import(pathToFileURL(join(root, 'dist', path)).href);
  const open = (await load(
    'mirror/open-mirror.js',
  )) as typeof import('../src/mirror/open-mirror.js');
  const writerThread = (await load(
    'sync/writer-thread-client.js',
  )) as typeof import('../src/sync/writer-thread-client.js');
  const cardIndex = (await load(
    'mirror/card-index.js',
  )) as typeof import('../src/mirror/card-index.js');
  return {
    openMirror: open.openMirror,
    startWriterThread: (file) => writerThread.WriterThread.start(file),
    dropCardIndexWhileEmpty: cardIndex.dropCardIndexWhileEmpty,
    ensureCardIndex: cardIndex.ensureCardIndex,
  };
}

const benchStarted = performance.now();
function progress(message: string): void {
  const at = ((performance.now() - benchStarted) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`[sync-scale ${at} s] ${message}\n`);
}

// Children and temp dirs, undone in reverse on the way out, failure and signals included.
// Clean-ups run one after another, so a signal during a stage's clean-up waits for it.
const cleanups: (() => Promise<void> | void)[] = [];
let cleaning = Promise.resolve();
function cleanUp(): Promise<void> {
  cleaning = cleaning.then(async () => {
    for (let undo = cleanups.pop(); undo; undo = cleanups.pop()) {
      try {
        await undo();
      } catch (error) {
        process.stderr.write(`cleanup failed: ${(error as Error).message}\n`);
      }
    }
  });
  return cleaning;
}
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopping = true;
    progress(`${signal}: stopping children and removing temp dirs`);
    void cleanUp().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

/** Refuse to start anything new once a signal has asked the bench to stop. */
function notStopping(): void {
  if (stopping) throw new Error('stopping');
}

function tempDir(label: string): string {
  notStopping();
  const dir = mkdtempSync(join(tmpdir(), `cardsync-bench-${label}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function sandboxFor(
  label: string,
  world: { cards: number; transactions: number },
): Promise<{ sandbox: SandboxProcess; dir: string }> {
  const dir = tempDir(label);
  const stateDir = join(dir, 'state');
  progress(
    `${label}: generating ${world.cards} cards, ${world.transactions} transactions over ${DAYS} days`,
  );
  const sandbox = await startSandboxProcess({
    cliMain,
    stateDir,
    cards: world.cards,
    transactions: world.transactions,
    days: DAYS,
    onStderr: (line) => process.stderr.write(`  [sandbox ${label}] ${line}\n`),
    onSpawn: (stop) => cleanups.push(stop),
  });
  progress(`${label}: sandbox up at ${sandbox.baseUrl} after ${sandbox.startSeconds.toFixed(1)} s`);
  return { sandbox, dir };
}

function merchantOf(sandbox: SandboxAnnouncement) {
  const merchant = sandbox.merchants[0];
  if (!merchant) throw new Error('the sandbox announced no merchant');
  return merchant;
}

function syncRun(
  label: string,
  sandbox: SandboxAnnouncement,
  db: string,
  concurrency = CONCURRENCY,
): Promise<TimedSync> {
  notStopping();
  progress(`${label}: cardsync sync --json --concurrency ${concurrency}`);
  const profileDir = CPU_PROFILE_DIR ? join(CPU_PROFILE_DIR, label) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  return runTimedSync({
    cliMain,
    sandbox,
    db,
    concurrency,
    cpuProfileDir: profileDir,
    onSpawn: (stop) => cleanups.push(stop),
  }).then((run) => {
    const m = run.result.merchants[0];
    progress(
      `${label}: ${run.result.outcome} (exit ${run.exitCode}) in ${run.seconds.toFixed(1)} s: ` +
        `${m?.transactions.fetched} transactions (${m?.transactions.inserted} new, ` +
        `${m?.transactions.windows} windows, ${m?.transactions.splits} splits), ` +
        `${m?.cards.fetched} cards, peak RSS ${mib(run.peakRssKiB * 1024)} MiB`,
    );
    return run;
  });
}

/** Replace the fault lab's rules. */
async function putFaults(sandbox: SandboxAnnouncement, rules: readonly object[]): Promise<void> {
  const agent = new Agent({ connect: { ca: readFileSync(sandbox.caFile, 'utf8') } });
  try {
    const response = await request(new URL('/_control/faults', sandbox.baseUrl), {
      method: 'PUT',
      headers: {
        'x-control-token': sandbox.controlToken ?? '',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ rules }),
      dispatcher: agent,
    });
    const body = await response.body.text();
    if (response.statusCode !== 200)
      throw new Error(`PUT /_control/faults answered ${response.statusCode}: ${body}`);
  } finally {
    await agent.close();
  }
}

/** Calls the fault lab's rules have matched so far (API requests, when a rule matches all). */
async function faultCalls(sandbox: SandboxAnnouncement): Promise<number> {
  const agent = new Agent({ connect: { ca: readFileSync(sandbox.caFile, 'utf8') } });
  try {
    const response = await request(new URL('/_control/faults', sandbox.baseUrl), {
      headers: { 'x-control-token': sandbox.controlToken ?? '' },
      dispatcher: agent,
    });
    const body = (await response.body.json()) as { rules: { calls: number }[] };
    return body.rules[0]?.calls ?? 0;
  } finally {
    await agent.close();
  }
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const rate = (rows: number, seconds: number) => Math.round(rows / seconds);
const count = (n: number) => n.toLocaleString('en-US');
const secs = (s: number) => `${s.toFixed(1)} s`;
/** Bytes as MB (10^6), with MiB beside them. */
const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB (${mib(bytes)} MiB)`;

interface Measurements {
  world: { cards: number; transactions: number; generationSeconds: number };
  fetchOnly: FetchOnlyResult;
  upsertOnly: UpsertOnlyResult;
  full: TimedSync;
  newRows: PostedTransactions;
  incremental: TimedSync;
  /** The incremental run's pages (cards, lookback, tail) fetched and parsed, no database. */
  incrementalFetch: FetchOnlyResult;
  latency: {
    world: { cards: number; transactions: number };
    run: TimedSync;
    requests: number;
    /** Every page of a first run under the same latency, fetched and parsed, no database. */
    fetchOnly: FetchOnlyResult;
    /** The upstream's ceiling under the latency: those requests sent again, bodies dropped. */
    plain: PlainClientResult;
    /** The same first sync at the default concurrency, where the two cores are not the limit. */
    atDefault: { run: TimedSync; requests: number };
  };
  big?: { world: { cards: number; transactions: number }; run: TimedSync };
  recon: ReconAtScale;
  /** CPU seconds the sandbox process used during each stage. */
  sandboxCpu: Record<string, number>;
}

async function measure(): Promise<Measurements> {
  const mirrorModules = await loadMirrorModules();
  const sandboxCpu: Record<string, number> = {};
  // CPU the sandbox spends serving a stage: with the client's, it says which side is the limit.
  const served = async <T>(stage: string, sandbox: SandboxProcess, work: () => Promise<T>) => {
    const before = processCpuSeconds(sandbox.pid);
    const value = await work();
    sandboxCpu[stage] = processCpuSeconds(sandbox.pid) - before;
    return value;
  };

  // The 1M world: both limits, the full sync, then the nightly run after 1% new rows.
  const main = await sandboxFor('1M', WORLD);
  const merchant = merchantOf(main.sandbox);
  const target = (sandbox: SandboxAnnouncement) => ({
    baseUrl: sandbox.baseUrl,
    apiKey: merchantOf(sandbox).apiKey,
    ca: readFileSync(sandbox.caFile, 'utf8'),
  });
  const fetchSettings = {
    concurrency: CONCURRENCY,
    maxPagesPerWindow: MAX_PAGES_PER_WINDOW,
    lookbackMs: LOOKBACK_MS,
    safetyLagMs: SAFETY_LAG_MS,
  };
  const sandboxFile = join(main.sandbox.stateDir ?? join(main.dir, 'state'), 'sandbox.sqlite');
  progress('1M: (a) fetch and parse every page, no database');
  const fetched = await served('fetchOnly', main.sandbox, () =>
    fetchOnly(target(main.sandbox), fetchSettings),
  );
  progress(
    `1M: (a) ${secs(fetched.seconds)}: ${fetched.transactions} transactions, ${fetched.cards} cards, ` +
      `${fetched.requests} requests, ${fetched.windows} windows, ${fetched.splits} splits`,
  );
  progress('1M: (b) upsert the same rows from the sandbox file, no network');
  const upserted = await upsertOnly({
    sandboxFile,
    mirrorFile: join(main.dir, 'upsert-only.sqlite'),
    merchantId: merchant.merchantId,
    mirror: mirrorModules,
  });
  progress(
    `1M: (b) writes ${secs(upserted.writeSeconds)} (with reading ${secs(upserted.totalSeconds)}): ` +
      `${upserted.transactions} transactions, ${upserted.cards} cards: ${upserted.chunks} pages and windows in ${upserted.commits} commits`,
  );
  rmSync(join(main.dir, 'upsert-only.sqlite'), { force: true });
  const mirrorFile = join(main.dir, 'mirror.sqlite');
  const full = await served('full', main.sandbox, () =>
    syncRun('1M full', main.sandbox, mirrorFile),
  );
  const newCount = Math.max(1, Math.round(WORLD.transactions * NEW_ROWS_SHARE));
  progress(`1M: posting ${newCount} new transactions through the control surface`);
  const newRows = await postNewTransactions({
    sandbox: main.sandbox,
    sandboxFile,
    count: newCount,
    inFlight: CONCURRENCY,
  });
  progress(
    `1M: ${newRows.recorded} recorded (${newRows.declined} declined) on ${newRows.cards} cards in ${secs(newRows.seconds)}`,
  );
  const incremental = await served('incremental', main.sandbox, () =>
    syncRun('1M incremental', main.sandbox, mirrorFile),
  );
  progress("1M: the incremental run's pages (cards, lookback, tail) fetched and parsed only");
  const incrementalFetch = await fetchOnly(target(main.sandbox), {
    ...fetchSettings,
    historyDone: true,
  });
  progress(
    `1M: ${secs(incrementalFetch.seconds)}: ${incrementalFetch.transactions} transactions, ` +
      `${incrementalFetch.cards} cards, ${incrementalFetch.requests} requests`,
  );
  progress('1M: import the journal, then one grouped pass and cardsync reconcile on the mirror');
  const journalFile = merchant.journalFile;
  if (!journalFile) throw new Error('the sandbox announced no journal file');
  // The sandbox stays up meanwhile: its CPU says whether it competed with the reconciliation.
  const recon = await served('recon', main.sandbox, () =>
    reconcileAtScale({
      cliMain,
      db: mirrorFile,
      reportsDir: join(main.dir, 'reports'),
      journalFile,
      merchantId: merchant.merchantId,
    }),
  );
  progress(
    `1M: reconcile ${secs(recon.reconcileSeconds)} (inside ${secs(recon.reconcileInnerSeconds)}), ` +
      `grouped pass ${secs(recon.groupedPassSeconds)} (scan ${secs(recon.groupedScanSeconds)}), import ${secs(recon.importSeconds)}: ` +
      `${recon.transactions} transactions, ${recon.cards} cards, ${recon.orders} orders, ${recon.findings} findings`,
  );

  // 50 ms on every request, on the same world (now 1% larger): the ceiling is concurrency x page
  // size / latency. The limits go first, so the sync meets a sandbox that has served these pages
  // under the latency before. A first sync of this size is what the goal is about: on a world a
  // fifth of its size the process start and the closing steps (about 0.5 s together) weigh five
  // times as much.
  await putFaults(main.sandbox, [{ kind: 'latency', ms: LATENCY_MS }]);
  progress('latency: every page fetched and parsed only, then sent again by a plain client');
  const { value: latencyFetch, paths } = await recordRequests(() =>
    fetchOnly(target(main.sandbox), fetchSettings),
  );
  const plain = await plainClient(target(main.sandbox), { concurrency: CONCURRENCY, paths });
  progress(
    `latency: fetch only ${secs(latencyFetch.seconds)} (${latencyFetch.requests} requests); ` +
      `plain client ${Math.round(plain.requestsPerSecond)} requests/s`,
  );
  // A first sync into a mirror of its own, and the API requests it sent (the latency rule
  // matches every one).
  const latencySync = async (stage: string, label: string, concurrency: number) => {
    const callsBefore = await faultCalls(main.sandbox);
    const db = join(main.dir, `${stage}.sqlite`);
    const run = await served(stage, main.sandbox, () =>
      syncRun(label, main.sandbox, db, concurrency),
    );
    rmSync(db, { force: true });
    return { run, requests: (await faultCalls(main.sandbox)) - callsBefore };
  };
  const { run: latencyRun, requests } = await latencySync('latency', 'latency', CONCURRENCY);
  const atDefault = await latencySync(
    'latencyDefault',
    'latency, default concurrency',
    DEFAULT_CONCURRENCY,
  );
  await cleanUp();

  let big: Measurements['big'];
  if (SKIP_3M) progress('3M: skipped (BENCH_SKIP_3M=1)');
  else {
    const huge = await sandboxFor('3M', BIG_WORLD);
    const run = await served('big', huge.sandbox, () =>
      syncRun('3M full', huge.sandbox, join(huge.dir, 'mirror.sqlite')),
    );
    big = { world: BIG_WORLD, run };
    await cleanUp();
  }
  return {
    world: { ...WORLD, generationSeconds: main.sandbox.startSeconds },
    fetchOnly: fetched,
    upsertOnly: upserted,
    full,
    newRows,
    incremental,
    incrementalFetch,
    recon,
    latency: {
      world: { cards: latencyFetch.cards, transactions: latencyFetch.transactions },
      run: latencyRun,
      requests,
      fetchOnly: latencyFetch,
      plain,
      atDefault,
    },
    ...(big ? { big } : {}),
    sandboxCpu,
  };
}

function report(m: Measurements): { sections: ResultSection[]; figures: object } {
  const limit = Math.max(m.fetchOnly.seconds, m.upsertOnly.writeSeconds);
  const ratio = m.full.seconds / limit;
  const fullRate = rate(m.full.rowsFetched, m.full.seconds);
  const latency = latencyFigures(CONCURRENCY, m.latency);
  const atDefault = latencyFigures(DEFAULT_CONCURRENCY, m.latency.atDefault);
  const share = m.incremental.seconds / m.full.seconds;
  const fetchShare = m.incrementalFetch.seconds / m.full.seconds;
  const lf = m.latency.fetchOnly;
  const latencyFetchRate = rate(lf.transactions + lf.cards, lf.seconds);
  // The plain client sends the fetch-only pass's requests again: the same rows.
  const plainRate = rate(lf.transactions + lf.cards, m.latency.plain.seconds);
  const rss1 = m.full.peakRssKiB * 1024;
  const rss3 = m.big ? m.big.run.peakRssKiB * 1024 : undefined;
  const label = `${count(m.world.transactions)} transactions, ${count(m.world.cards)} cards`;
  const sb = m.sandboxCpu;
  const reconRatio = m.recon.reconcileInnerSeconds / m.recon.groupedPassSeconds;
  const reconScanRatio = m.recon.reconcileInnerSeconds / m.recon.groupedScanSeconds;
  const sections: ResultSection[] = [
    {
      title: `1. full sync (${label}; generated in ${secs(m.world.generationSeconds)})`,
      rows: [
        {
          measure: '(a) fetch + parse only, no database',
          figure: `${secs(m.fetchOnly.seconds)}  ${count(rate(m.fetchOnly.transactions + m.fetchOnly.cards, m.fetchOnly.seconds))} rows/s`,
        },
        {
          measure: '    of which the card list',
          figure: `${secs(m.fetchOnly.cardSeconds)}  ${count(rate(m.fetchOnly.cards, m.fetchOnly.cardSeconds))} cards/s`,
        },
        {
          measure: '(b) upsert only, no network: time in writes',
          figure: `${secs(m.upsertOnly.writeSeconds)}  ${count(rate(m.upsertOnly.transactions + m.upsertOnly.cards, m.upsertOnly.writeSeconds))} rows/s  ${count(m.upsertOnly.commits)} commits`,
        },
        {
          measure: '    with reading the sandbox file',
          figure: secs(m.upsertOnly.totalSeconds),
        },
        {
          measure: 'full sync (wall, separate process)',
          figure: `${secs(m.full.seconds)}  ${count(fullRate)} rows/s`,
        },
        {
          measure: 'full / max(a, b)',
          figure: `${ratio.toFixed(2)}x`,
          goal: '<= 1.40x',
          met: ratio <= 1.4,
        },
      ],
    },
    {
      title: `2. ${LATENCY_MS} ms added per request (${count(m.latency.world.transactions)} transactions, ${count(m.latency.world.cards)} cards)`,
      rows: [
        ...latencyRows(`${CONCURRENCY}`, latency),
        {
          measure: 'the same pages fetched + parsed only (no database, no process start)',
          figure: `${secs(lf.seconds)}  ${count(latencyFetchRate)} rows/s`,
        },
        {
          measure: 'plain client: the same requests, bodies read and dropped',
          figure: `${count(plainRate)} rows/s  ${count(Math.round(m.latency.plain.requestsPerSecond))} requests/s`,
        },
        ...latencyRows(`${DEFAULT_CONCURRENCY} (the default)`, atDefault),
      ],
    },
    {
      title: `3. nightly incremental after ${count(m.newRows.recorded)} new transactions (1%)`,
      rows: [
        {
          measure: 'incremental sync',
          figure: `${secs(m.incremental.seconds)}  ${(share * 100).toFixed(1)}% of full`,
          goal: '<= 5.0%',
          met: share <= 0.05,
        },
        {
          measure: 'its pages (cards, lookback, tail) fetched + parsed only',
          figure: `${secs(m.incrementalFetch.seconds)}  ${(fetchShare * 100).toFixed(1)}% of full  ${count(m.incrementalFetch.requests)} requests`,
        },
      ],
    },
    {
      title: `4. reconciliation (${count(m.recon.transactions)} transactions, ${count(m.recon.cards)} cards, ${count(m.recon.orders)} journal orders)`,
      rows: [
        {
          measure: 'cardsync reconcile (process wall; inside)',
          figure: `${secs(m.recon.reconcileSeconds)}; ${secs(m.recon.reconcileInnerSeconds)}  ${count(m.recon.findings)} findings`,
        },
        {
          measure: 'one grouped SQL pass over transactions (as planned; forced scan)',
          figure: `${secs(m.recon.groupedPassSeconds)}; ${secs(m.recon.groupedScanSeconds)}`,
        },
        {
          measure: 'reconcile (inside) / grouped pass as planned',
          figure: `${reconRatio.toFixed(2)}x`,
          goal: '<= 5.00x',
          met: reconRatio <= 5,
        },
        {
          measure: 'reconcile (inside) / grouped pass, forced scan',
          figure: `${reconScanRatio.toFixed(2)}x`,
        },
        { measure: 'orders import (journal CSV)', figure: secs(m.recon.importSeconds) },
      ],
    },
    {
      title: '5. peak RSS of the sync process (VmHWM)',
      rows: [
        {
          measure: `at ${count(m.world.transactions)} transactions`,
          figure: megabytes(rss1),
          goal: `<= ${megabytes(RSS_GOAL_BYTES)}`,
          met: rss1 <= RSS_GOAL_BYTES,
        },
        m.big && rss3 !== undefined
          ? {
              measure: `at ${count(m.big.world.transactions)} transactions (${secs(m.big.run.seconds)}, ${count(rate(m.big.run.rowsFetched, m.big.run.seconds))} rows/s)`,
              figure: megabytes(rss3),
              goal: `<= ${megabytes(RSS_GOAL_BYTES)} and not above 1M`,
              met: rss3 <= RSS_GOAL_BYTES && rss3 <= rss1,
            }
          : { measure: 'at 3M transactions', figure: 'skipped' },
      ],
    },
    {
      title: '6. where the time goes: wall / CPU of the client (sync) process / CPU of the sandbox',
      rows: [
        cpuRow('(a) fetch + parse only', m.fetchOnly.seconds, m.fetchOnly.cpuSeconds, sb.fetchOnly),
        cpuRow(
          '(b) upsert only (time in writes)',
          m.upsertOnly.writeSeconds,
          m.upsertOnly.writeCpuSeconds,
        ),
        cpuRow('full sync', m.full.seconds, m.full.cpuSeconds, sb.full),
        cpuRow('incremental sync', m.incremental.seconds, m.incremental.cpuSeconds, sb.incremental),
        cpuRow('50 ms latency sync', m.latency.run.seconds, m.latency.run.cpuSeconds, sb.latency),
        cpuRow(
          `50 ms latency sync, concurrency ${DEFAULT_CONCURRENCY}`,
          m.latency.atDefault.run.seconds,
          m.latency.atDefault.run.cpuSeconds,
          sb.latencyDefault,
        ),
        ...(m.big ? [cpuRow('3M full sync', m.big.run.seconds, m.big.run.cpuSeconds, sb.big)] : []),
        {
          measure: 'orders import, grouped passes and reconcile',
          figure: `sandbox ${secs(sb.recon ?? Number.NaN)} meanwhile`,
        },
      ],
    },
  ];
  const figures = {
    scale: SCALE,
    settings: {
      concurrency: CONCURRENCY,
      pageSize: PAGE_SIZE,
      maxPagesPerWindow: MAX_PAGES_PER_WINDOW,
      lookbackMs: LOOKBACK_MS,
      latencyMs: LATENCY_MS,
    },
    world: m.world,
    fetchOnly: m.fetchOnly,
    upsertOnly: m.upsertOnly,
    full: { ...summary(m.full), rowsPerSecond: fullRate, ratioToLimit: ratio, goal: 1.4 },
    latency: {
      world: m.latency.world,
      ...latency,
      fetchOnly: { ...lf, rowsPerSecond: latencyFetchRate },
      plainClient: { ...m.latency.plain, rowsPerSecond: plainRate },
      atDefaultConcurrency: atDefault,
    },
    incremental: {
      newRows: m.newRows,
      ...summary(m.incremental),
      shareOfFull: share,
      fetchOnly: { ...m.incrementalFetch, shareOfFull: fetchShare },
      goal: 0.05,
    },
    recon: {
      ...m.recon,
      ratioToGroupedPass: reconRatio,
      ratioToGroupedScan: reconScanRatio,
      goal: 5,
    },
    peakRssBytes: { at1M: rss1, at3M: rss3 ?? null, goal: RSS_GOAL_BYTES },
    big: m.big ? { world: m.big.world, ...summary(m.big.run) } : null,
    sandboxCpuSeconds: m.sandboxCpu,
  };
  return { sections, figures };
}

/** A latency sync's figures: its rate against concurrency x page size / latency, less 20%. */
function latencyFigures(concurrency: number, sync: { run: TimedSync; requests: number }) {
  return {
    concurrency,
    ...summary(sync.run),
    rowsPerSecond: rate(sync.run.rowsFetched, sync.run.seconds),
    requests: sync.requests,
    requestsPerSecond: sync.requests / sync.run.seconds,
    goalRowsPerSecond: (0.8 * concurrency * PAGE_SIZE) / (LATENCY_MS / 1000),
  };
}

/** A latency sync's throughput against its goal, and its requests against their ceiling. */
function latencyRows(label: string, f: ReturnType<typeof latencyFigures>): ResultRow[] {
  return [
    {
      measure: `throughput at concurrency ${label}`,
      figure: `${count(f.rowsPerSecond)} rows/s`,
      goal: `>= ${count(f.goalRowsPerSecond)} rows/s`,
      met: f.rowsPerSecond >= f.goalRowsPerSecond,
    },
    {
      measure: 'requests',
      figure: `${count(f.requests)} in ${secs(f.seconds)}  ${count(Math.round(f.requestsPerSecond))}/s`,
      goal: `(ceiling ${count((f.concurrency * 1000) / LATENCY_MS)}/s)`,
    },
  ];
}

function cpuRow(measure: string, wall: number, client: number, sandbox?: number): ResultRow {
  const served = sandbox === undefined ? 'no sandbox' : `sandbox ${secs(sandbox)}`;
  return {
    measure,
    figure: `${secs(wall)}  client ${secs(client)} (${((client / wall) * 100).toFixed(0)}%)  ${served}`,
  };
}

function summary(run: TimedSync) {
  return {
    seconds: run.seconds,
    exitCode: run.exitCode,
    outcome: run.result.outcome,
    rowsFetched: run.rowsFetched,
    peakRssKiB: run.peakRssKiB,
    cpuSeconds: run.cpuSeconds,
    merchant: run.result.merchants[0] ?? null,
  };
}

try {
  const measurements = await measure();
  const { sections, figures } = report(measurements);
  mkdirSync(join(root, '.bench-dist'), { recursive: true });
  writeFileSync(resultFile, `${JSON.stringify(figures, null, 2)}\n`);
  progress(`figures written to ${resultFile}`);
  const scaleNote = SCALE === 1 ? '' : ` (BENCH_SCALE=${SCALE})`;
  process.stdout.write(`\ncardsync sync at scale${scaleNote}\n`);
  process.stdout.write(formatResultsTable(sections));
} catch (error) {
  // A stage cut short by a signal fails; the signal handler reports and exits.
  if (!stopping) throw error;
} finally {
  await cleanUp();
}
