import { resolve } from 'node:path';
import { loadJobConfig } from '../../config/index.js';
import { importOrderFile } from '../../journal/order-import.js';
import { type RunningSandbox, startSandbox } from '../../sandbox/sandbox.js';
import type { CliIo } from '../cli-io.js';
import { commandLogger } from '../command-logger.js';
import type { DemoFlags } from '../commands/demo-command.js';
import { type DemoMerchant, writeDemoConfig } from '../demo-config.js';
import { type DemoLayout, demoLayout, prepareDemoFolder } from '../demo-folder.js';
import { mirroredRows } from '../demo-mirror-rows.js';
import { demoChecks, demoJson, formatDemoSummary } from '../demo-summary.js';
import { EXIT, ExitError, UsageError } from '../exit-codes.js';
import { openMirrorOrExit } from '../job-setup.js';
import { nightlyJob } from '../nightly-job.js';
import { checkOutputDirs } from '../output-dirs.js';
import { runExitMessage } from '../run-summary.js';

/** Days of generated history: enough for STALE_PENDING's week and a few months of fees. */
const DEMO_DAYS = 90;
/** One merchant with cents and one with none, so both kinds of rounding show. */
const DEMO_CURRENCIES = ['USD', 'JPY'] as const;

/**
 * The body of `cardsync demo`: start the embedded service with a generated history and planted
 * findings, run the nightly job against it, and say where the reports and the mirror are.
 */
export async function demoAction(io: CliIo, flags: DemoFlags): Promise<void> {
  const started = Date.now();
  if (flags.transactions < flags.cards) {
    throw new UsageError(
      `--transactions must be at least --cards (${flags.cards}): every card has its issuance FEE record`,
    );
  }
  if (flags.dir === '') throw new UsageError('--dir: expected a path, got ""');
  const layout = demoLayout(resolve(io.cwd, flags.dir));
  await prepareDemoFolder(layout);
  const logger = commandLogger(io, flags.logLevel);
  const log = logger.child({ module: 'demo' });
  // A terminal gets a line per step; logs (JSON on stderr elsewhere) record each step too.
  const step = (text: string) => {
    log.info(text);
    if (io.stderrIsTTY && !flags.json) io.stderr(`demo: ${text}\n`);
  };
  const stopped = () => io.stderr('demo: stopped before the nightly job started\n');
  try {
    step(
      `generating ${flags.cards} cards and ${flags.transactions} transactions in ${layout.sandboxDir}`,
    );
    const sandbox = await startSandbox({
      logger: logger.child({ module: 'sandbox' }),
      signal: io.signal,
      port: 0,
      seed: flags.seed,
      merchants: DEMO_CURRENCIES.length,
      currencies: DEMO_CURRENCIES,
      stateDir: layout.sandboxDir,
      control: false,
      world: {
        cards: flags.cards,
        transactions: flags.transactions,
        days: DEMO_DAYS,
        anomaliesPerCode: flags.anomalies,
      },
    }).catch((error: unknown) => {
      // Stopped while generating: the folder is left for the next demo, which empties it.
      if (io.signal.aborted && error === io.signal.reason) return undefined;
      throw error;
    });
    if (!sandbox) return stopped();
    try {
      const merchants = await writeDemoConfig(layout, sandbox, sandbox.merchants);
      const orders = await importJournals(layout, merchants);
      log.info({ orders: Object.fromEntries(orders) }, 'journals imported');
      if (io.signal.aborted) return stopped();
      // The demo's own file alone: a user's CARDSYNC_* variables must not send it elsewhere.
      const config = await loadJobConfig({
        env: {},
        cwd: io.cwd,
        flags: { config: layout.configFile },
        requireUpstream: true,
      });
      checkOutputDirs(config);
      step(`nightly job starting against ${sandbox.baseUrl}`);
      const outcome = await nightlyJob(io, config, {
        failOn: undefined,
        progress: io.stderrIsTTY && !flags.json,
        logger,
      });
      if (outcome.error) throw outcome.error;
      const run = outcome.result;
      if (!run?.reconcile) {
        throw new ExitError(
          outcome.exitCode === EXIT.OK ? EXIT.SYNC_INCOMPLETE : outcome.exitCode,
          `demo stopped: ${run ? runExitMessage(run, undefined, config.merchants) : 'the nightly job did not run'}`,
        );
      }
      const summary = {
        layout,
        seed: sandbox.seed,
        baseUrl: sandbox.baseUrl,
        caFile: sandbox.caFile,
        groundTruthFile: sandbox.groundTruthFile,
        merchants: withRows(layout, merchants, orders),
        checks: demoChecks(sandbox.world?.groundTruth?.findings ?? [], run),
        notPlanted: notPlanted(sandbox),
        run,
        durationMs: Date.now() - started,
      };
      io.stdout(
        flags.json ? `${JSON.stringify(demoJson(summary))}\n` : formatDemoSummary(summary, io.cwd),
      );
      if (outcome.exitCode !== EXIT.OK)
        throw new ExitError(outcome.exitCode, runExitMessage(run, undefined, config.merchants));
    } finally {
      await sandbox.close();
    }
  } finally {
    logger.flush();
  }
}

/** Import each merchant's generated order journal into the mirror; orders imported per id. */
async function importJournals(layout: DemoLayout, merchants: readonly DemoMerchant[]) {
  const imported = new Map<string, number>();
  const mirror = openMirrorOrExit(layout.db, '--dir');
  try {
    for (const m of merchants) {
      if (m.journalFile === undefined) continue;
      const result = await importOrderFile(mirror.db, {
        file: m.journalFile,
        merchantId: m.merchantId,
      });
      imported.set(m.merchantId, result.inserted);
    }
  } finally {
    await mirror.close();
  }
  return imported;
}

function withRows(
  layout: DemoLayout,
  merchants: readonly DemoMerchant[],
  orders: ReadonlyMap<string, number>,
) {
  const rows = mirroredRows(layout.db);
  return merchants.map((m) => ({
    ...m,
    cards: rows.get(m.merchantId)?.cards ?? 0,
    transactions: rows.get(m.merchantId)?.transactions ?? 0,
    orders: orders.get(m.merchantId) ?? 0,
  }));
}

/** Codes the world leaves out, with the manifest's reason; none without planted findings. */
function notPlanted(sandbox: RunningSandbox): Record<string, string> {
  const codes = sandbox.world?.groundTruth?.notPlanted ?? {};
  return Object.fromEntries(
    Object.entries(codes).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}
