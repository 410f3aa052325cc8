import { constants, existsSync, rmdirSync, rmSync } from 'node:fs';
import { access, open, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { refusesCredentials } from '../../api/index.js';
import { ConfigError } from '../../config/index.js';
import { readConfigFile } from '../../config/read-config-file.js';
import { OrderDesk, type OrderOutcome } from '../../journal/order-desk.js';
import { type ImportResult, importOrderFile } from '../../journal/order-import.js';
import { OrderImportError } from '../../journal/order-import-error.js';
import { type Mirror, openMirror } from '../../mirror/open-mirror.js';
import type { SqliteDatabase } from '../../mirror/sqlite-database.js';
import { sweepStaleTemps } from '../../reports/stale-temps.js';
import type { CliIo } from '../cli-io.js';
import type { ImportFlags, SettleFlags } from '../commands/orders-command.js';
import { EXIT, ExitError, UsageError } from '../exit-codes.js';
import { type ConfiguredMerchant, chooseImportMerchant } from '../import-merchant.js';
import { loadConfig, openMirrorOrExit } from '../job-setup.js';
import { journalMerchant } from '../journal-merchant.js';
import { isMirrorBusy, mirrorBusyExit } from '../mirror-busy.js';
import { outcomeExit, outcomeJson } from '../order-outcome-output.js';
import { placeNewFile } from '../place-new-file.js';
import { orderClock } from '../upstream-order-clock.js';
import { withSession } from '../with-session.js';

/** The body of `cardsync orders import`: import a journal file, all rows or none. */
export async function importOrdersAction(
  io: CliIo,
  file: string,
  flags: ImportFlags,
): Promise<void> {
  const config = await loadConfig(
    io,
    {
      ...(flags.config === undefined ? {} : { config: flags.config }),
      ...(flags.db === undefined ? {} : { db: flags.db }),
    },
    false,
  );
  const configured = await configuredMerchants(io, flags.config);
  const journal = resolve(io.cwd, file);
  await checkReadable(journal);
  sweepKilledImports(config.db);
  const fromEnv = io.env.CARDSYNC_MERCHANT_ID || undefined;
  let mirror = existsSync(config.db) ? openMirrorOrExit(config.db, config.origins.db) : undefined;
  try {
    const merchantId = chooseImportMerchant({
      flag: flags.merchant,
      configured,
      fromEnv,
      mirrored: mirror ? mirroredMerchants(mirror.db) : [],
    });
    const imported = mirror
      ? undefined
      : await importIntoNewMirror(config, journal, merchantId, io, flags.json);
    let result: ImportResult;
    if (imported) result = imported;
    else {
      mirror ??= openMirrorOrExit(config.db, config.origins.db);
      try {
        result = await importOrderFile(mirror.db, { file: journal, merchantId, signal: io.signal });
      } catch (error) {
        throw importExit(io, error, merchantId, flags.json);
      }
    }
    io.stdout(flags.json ? `${JSON.stringify(result)}\n` : importText(result));
  } finally {
    await mirror?.close();
  }
}

/**
 * Import `journal` into a mirror that does not exist yet, so that a refused file leaves none
 * behind: into a new file beside `target`, put in place once the import is done
 * ({@link placeNewFile}, which never replaces a mirror another process created meanwhile).
 * Returns undefined when one was, for the caller to import into it.
 */
async function importIntoNewMirror(
  config: { readonly db: string; readonly origins: { readonly db: string } },
  journal: string,
  merchantId: string,
  io: CliIo,
  json: boolean,
): Promise<ImportResult | undefined> {
  const target = config.db;
  const scratch = join(dirname(target), `${scratchPrefix(target)}${process.pid}`);
  // openMirror makes the mirror's folders; a refused file leaves none of them behind either.
  const made = missingFolders(dirname(target));
  removeMirrorFiles(scratch);
  try {
    let mirror: Mirror;
    try {
      mirror = openMirror(scratch);
    } catch (error) {
      const reason = ((error as Error).cause as Error | undefined)?.message;
      throw new ExitError(
        EXIT.USAGE,
        `${config.origins.db}: cannot create the mirror ${target}${reason ? `: ${reason}` : ''}`,
      );
    }
    let result: ImportResult;
    try {
      result = await importOrderFile(mirror.db, { file: journal, merchantId, signal: io.signal });
    } catch (error) {
      throw importExit(io, error, merchantId, json);
    } finally {
      // The last connection to close folds the WAL into the file and removes it.
      await mirror.close();
    }
    try {
      placeNewFile(scratch, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
      throw error;
    }
    return result;
  } catch (error) {
    removeMirrorFiles(scratch);
    removeEmptyFolders(made);
    throw error;
  } finally {
    removeMirrorFiles(scratch);
  }
}

/** The name of a scratch mirror for `target` up to the importing process's pid. */
function scratchPrefix(target: string): string {
  return `.${basename(target)}.import-`;
}

/**
 * Remove the scratch mirrors (with their `-wal` and `-shm`) that imports killed an hour ago or
 * more left beside `target`: each is named after its process, so no later import reuses it, and
 * one SIGKILLed while importing a large journal left a file as large beside the mirror for good.
 */
function sweepKilledImports(target: string): void {
  const folder = dirname(target);
  if (!existsSync(folder)) return;
  try {
    sweepStaleTemps(folder, scratchPrefix(target), 'files');
  } catch {
    // A folder that cannot be listed is met, with its own message, where the mirror is opened.
  }
}

/** The folders that do not exist yet on the way to `folder`, deepest first. */
function missingFolders(folder: string): string[] {
  const missing: string[] = [];
  for (let f = folder; !existsSync(f) && dirname(f) !== f; f = dirname(f)) missing.push(f);
  return missing;
}

/** Remove `folders` (deepest first) while they are empty: another process may have used one. */
function removeEmptyFolders(folders: readonly string[]): void {
  for (const folder of folders) {
    try {
      rmdirSync(folder);
    } catch {
      return;
    }
  }
}

function removeMirrorFiles(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal'])
    rmSync(`${file}${suffix}`, { force: true });
}

/**
 * A journal file that cannot be read is exit 2 before the mirror is opened, let alone created:
 * a regular file's first byte is read, so a folder or a file without read permission fails here.
 * A pipe (`/dev/stdin`, a shell's `<(...)`, a FIFO) or a socket (the stdin a Node.js parent
 * pipes) is only checked for permission: its bytes can be read once, by the import, and a first
 * byte read here would be gone from the header.
 */
async function checkReadable(file: string): Promise<void> {
  try {
    const stats = await stat(file);
    if (stats.isFIFO() || stats.isSocket()) {
      await access(file, constants.R_OK);
      return;
    }
    const handle = await open(file);
    try {
      await handle.read(Buffer.alloc(1), 0, 1, 0);
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new UsageError(`cannot read ${file} (${code}); nothing was imported`);
  }
}

async function configuredMerchants(
  io: CliIo,
  config: string | undefined,
): Promise<ConfiguredMerchant[] | undefined> {
  if (config === undefined) return undefined;
  try {
    const file = await readConfigFile(resolve(io.cwd, config));
    return file.content.merchants?.map((m) => ({ name: m.name, merchantId: m.merchantId }));
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/**
 * The merchants the mirror names: those a sync stored, and those of journaled orders. A stored
 * merchant keeps its configured name (`source`) only while it is the merchant that name read
 * last: a name given to another account leaves the old merchant's row with it, and the import
 * took whichever id sorted first for the name.
 */
function mirroredMerchants(db: SqliteDatabase): { merchantId: string; source: string }[] {
  return db
    .prepare(
      `SELECT merchant_id AS merchantId,
              CASE WHEN updated_at = (SELECT max(n.updated_at) FROM merchants n
                                      WHERE n.source = m.source)
                   THEN source ELSE '' END AS source
       FROM merchants m WHERE merchant_id NOT LIKE 'source:%'
       UNION SELECT DISTINCT merchant_id, '' FROM orders WHERE merchant_id NOT LIKE 'source:%'
       ORDER BY 1, 2 DESC`,
    )
    .all() as { merchantId: string; source: string }[];
}

function importText(result: ImportResult): string {
  const warnings = result.warnings.map((w) => `  line ${w.line}: warning: ${w.reason}\n`);
  const learnt = result.orderNosLearnt > 0 ? `, ${result.orderNosLearnt} given their orderNo` : '';
  return `imported ${result.file} for merchant ${result.merchantId}: ${result.rows} rows, ${result.inserted} new${learnt}, ${result.unchanged} already journaled\n${warnings.join('')}`;
}

/**
 * A refused file: every offending line on stderr (or in the JSON), then exit 2; a mirror held
 * by another writer is exit 5; an import stopped by SIGINT or SIGTERM, exit 4 (run it again).
 */
function importExit(io: CliIo, error: unknown, merchantId: string, json: boolean): unknown {
  if (isMirrorBusy(error)) return mirrorBusyExit(error);
  if (!(error instanceof OrderImportError)) return error;
  if (error.code === 'IMPORT_INTERRUPTED')
    return new ExitError(EXIT.SYNC_INCOMPLETE, error.message, { cause: error });
  if (json)
    io.stdout(
      `${JSON.stringify({ file: error.file, merchantId, refused: true, code: error.code, issues: error.issues })}\n`,
    );
  else for (const issue of error.issues) io.stderr(`  line ${issue.line}: ${issue.reason}\n`);
  return new ExitError(EXIT.USAGE, error.message, { cause: error });
}

/**
 * The body of `cardsync orders settle`: resend the orders journaled SUBMITTED; exit 0 only when
 * each is ACCEPTED, 4 (3) when one is still SUBMITTED, else 7 when one was refused. Without a mirror
 * nothing is journaled, so none is created: an exit 2 (an unknown merchant, an unknown
 * reference) must leave nothing behind, and "nothing to settle" has nothing to write.
 */
export async function settleOrdersAction(io: CliIo, flags: SettleFlags): Promise<void> {
  await withSession(io, flags, 'orders settle', async (session) => {
    const { db, origins } = session.config;
    const mirror = existsSync(db) ? openMirrorOrExit(db, origins.db) : undefined;
    try {
      const who = await journalMerchant(session, mirror?.db, {
        needCurrency: false,
        signal: io.signal,
      });
      const desk =
        mirror &&
        new OrderDesk({
          db: mirror.db,
          api: session.api,
          merchantId: who.merchantId,
          // Only outcomes are stamped here, each after its answer set the clock.
          clock: orderClock(session.api),
          logger: session.logger,
        });
      const refs =
        flags.merchantOrderNo === undefined
          ? (desk?.pending().map((row) => row.merchant_order_no) ?? [])
          : [flags.merchantOrderNo];
      const outcomes: OrderOutcome[] = [];
      for (const ref of refs) {
        if (!desk)
          throw new UsageError(
            `${origins.db}: no journaled order has merchantOrderNo ${ref}: there is no mirror at ${db}`,
          );
        const outcome = await desk.settle(ref, { signal: io.signal });
        outcomes.push(outcome);
        // A refused key, or credentials the proxy refused, would be refused for every order left.
        if (refusesCredentials(outcome.error?.code) || io.signal.aborted) break;
      }
      io.stdout(
        flags.json
          ? `${JSON.stringify({ merchantId: who.merchantId, settled: outcomes.map((o) => outcomeJson(o, who.merchantId)) })}\n`
          : settleText(outcomes),
      );
      const open = outcomes.find((o) => o.state === 'SUBMITTED');
      const left = refs.length - outcomes.length;
      if (open) {
        const exit = outcomeExit(open, session.merchant);
        if (exit) throw exit;
      }
      if (left > 0)
        throw new ExitError(EXIT.SYNC_INCOMPLETE, `${left} order(s) not tried; run it again`);
      // A resend the upstream refused was never an order: exit 7 (3 for the key), as the command
      // that first sent it would have; 0 told a script the order had gone through.
      const refused = outcomes.filter((o) => o.state === 'REJECTED');
      const first = refused[0] && outcomeExit(refused[0], session.merchant);
      if (first)
        throw refused.length === 1
          ? first
          : new ExitError(
              first.exitCode,
              `${refused.length} orders refused by the upstream (each in the output); the first: ${first.message}`,
            );
    } finally {
      await mirror?.close();
    }
  });
}

function settleText(outcomes: readonly OrderOutcome[]): string {
  if (outcomes.length === 0) return 'nothing to settle: no order is journaled SUBMITTED\n';
  return outcomes
    .map((o) => {
      const head = `${o.kind} ${o.merchantOrderNo}: ${o.state}`;
      if (o.state === 'ACCEPTED')
        return `${head} ${o.orderNo === null ? 'no order number given' : `order ${o.orderNo}`}${o.replayed ? ' (replayed by the upstream)' : o.fromJournal ? ' (already settled)' : ''}\n`;
      if (o.state === 'REJECTED') return `${head} ${o.errorCode}\n`;
      return `${head} (outcome still unknown: ${o.error?.message ?? 'no answer'})\n`;
    })
    .join('');
}
