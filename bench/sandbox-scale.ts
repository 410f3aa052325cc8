/**
 * Issue 3's benchmark: generation time and peak memory for a large world, then the server time
 * of a page of 100 transactions at deep offsets and under each filter, and pages per second
 * served to a concurrent client. Run with `npm run bench` (BENCH_CARDS / BENCH_TRANSACTIONS
 * override the size).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { createLogger } from '../src/log/logger.js';
import { startSandbox } from '../src/sandbox/sandbox.js';
import { ms, quantile } from './percentiles.js';

const CARDS = Number(process.env.BENCH_CARDS ?? 100_000);
const TRANSACTIONS = Number(process.env.BENCH_TRANSACTIONS ?? 1_000_000);

if (process.argv[2] === '--generate-to-disk') {
  // Child mode: generate into a state directory and report time and peak RSS, so the figure is
  // the generator's own memory, not the in-memory database's.
  const stateDir = mkdtempSync(join(tmpdir(), 'cardsync-bench-'));
  const t0 = performance.now();
  const s = await startSandbox({
    logger: createLogger({ level: 'warn' }),
    merchants: 1,
    stateDir,
    world: { cards: CARDS, transactions: TRANSACTIONS, days: 365, anomaliesPerCode: 0 },
  });
  const seconds = (performance.now() - t0) / 1000;
  await s.close();
  rmSync(stateDir, { recursive: true, force: true });
  console.log(JSON.stringify({ seconds, peakRssMiB: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
}

const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--generate-to-disk'], {
  encoding: 'utf8',
  env: process.env,
});
const onDisk = JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}') as {
  seconds: number;
  peakRssMiB: number;
};

const started = performance.now();
const sandbox = await startSandbox({
  logger: createLogger({ level: 'warn' }),
  merchants: 1,
  world: { cards: CARDS, transactions: TRANSACTIONS, days: 365, anomaliesPerCode: 0 },
});
const generationMs = performance.now() - started;
const rssAfterGeneration = process.memoryUsage().rss;
const peakRss = process.resourceUsage().maxRSS * 1024;
const merchant = sandbox.merchants[0];
if (!merchant) throw new Error('no merchant');
const agent = new Agent({ connect: { ca: sandbox.caPem }, connections: 32, pipelining: 1 });

async function page(
  query: Record<string, string | number>,
): Promise<{ serverMs: number; total: number; count: number }> {
  const url = new URL('/transactions', sandbox.baseUrl);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
  const response = await request(url, {
    headers: { 'x-api-key': merchant?.apiKey ?? '' },
    dispatcher: agent,
  });
  const body = (await response.body.json()) as { data: unknown[]; pagination: { total: number } };
  if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
  const timing = String(response.headers['server-timing'] ?? '');
  const serverMs = Number(/dur=([\d.]+)/.exec(timing)?.[1] ?? Number.NaN);
  return { serverMs, total: body.pagination.total, count: body.data.length };
}

// Warm the index and the connections.
const first = await page({ limit: 100 });
const totalPages = Math.ceil(first.total / 100);
const mid = await page({ limit: 100, page: Math.floor(totalPages / 2) });
const anyCard = (await (async () => {
  const r = await request(new URL('/cards?limit=1', sandbox.baseUrl), {
    headers: { 'x-api-key': merchant.apiKey },
    dispatcher: agent,
  });
  return ((await r.body.json()) as { data: { cardId: string }[] }).data[0]?.cardId;
})()) as string;
void mid;
const now = Date.now();
const scenarios: [string, (i: number) => Record<string, string | number>][] = [
  ['first page', () => ({ limit: 100 })],
  [
    'deep offset (last 10% of pages)',
    (i) => ({ limit: 100, page: totalPages - (i % Math.max(1, Math.floor(totalPages / 10))) }),
  ],
  ['type=PURCHASE, deep', (i) => ({ limit: 100, type: 'PURCHASE', page: 2_000 + (i % 500) })],
  ['status=SETTLED, deep', (i) => ({ limit: 100, status: 'SETTLED', page: 2_000 + (i % 500) })],
  [
    'type=REFUND&status=COMPLETED',
    (i) => ({ limit: 100, type: 'REFUND', status: 'COMPLETED', page: 1 + (i % 20) }),
  ],
  [
    '30-day window, deep',
    (i) => ({
      limit: 100,
      startTime: new Date(now - 60 * 86_400_000).toISOString(),
      endTime: new Date(now - 30 * 86_400_000).toISOString(),
      page: 100 + (i % 200),
    }),
  ],
  ['cardId', () => ({ limit: 100, cardId: anyCard })],
];
const lines: string[] = [];
for (const [name, query] of scenarios) {
  const samples: number[] = [];
  for (let i = 0; i < 300; i++) samples.push((await page(query(i))).serverMs);
  lines.push(
    `  ${name.padEnd(34)} median ${ms(quantile(samples, 0.5))}  p99 ${ms(quantile(samples, 0.99))}`,
  );
}

// Pages per second to a concurrent client: 16 requests in flight for 5 s.
const deadline = performance.now() + 5_000;
let served = 0;
await Promise.all(
  Array.from({ length: 16 }, async (_, worker) => {
    let i = worker;
    while (performance.now() < deadline) {
      await page({ limit: 100, page: 1 + ((i * 7919) % totalPages) });
      served++;
      i += 16;
    }
  }),
);

console.log(`sandbox at scale: ${CARDS} cards, ${TRANSACTIONS} transactions`);
console.log(
  `  generation into a state directory (SQLite file): ${onDisk.seconds.toFixed(1)} s, peak RSS ${onDisk.peakRssMiB.toFixed(0)} MiB`,
);
console.log(
  `  generation in memory ${(generationMs / 1000).toFixed(1)} s, peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB (RSS after ${(rssAfterGeneration / 2 ** 20).toFixed(0)} MiB; in-memory SQLite included)`,
);
console.log('  server time of a page of 100 transactions:');
for (const line of lines) console.log(line);
console.log(`  concurrent client (16 in flight): ${(served / 5).toFixed(0)} pages/s`);
await agent.close();
await sandbox.close();
