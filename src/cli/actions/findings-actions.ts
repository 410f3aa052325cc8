import { existsSync } from 'node:fs';
import { ConfigError } from '../../config/config-error.js';
import { parseInstant } from '../../config/iso-instant.js';
import { FindingsError } from '../../recon/findings-error.js';
import { ackFinding, listFindings } from '../../recon/findings-store.js';
import type { StoredFinding } from '../../recon/stored-finding.js';
import { compareFindings } from '../../reports/report-order.js';
import type { CliIo } from '../cli-io.js';
import type {
  AckFindingFlags,
  ListFindingsFlags,
  MirrorFlags,
} from '../commands/findings-command.js';
import { UsageError } from '../exit-codes.js';
import { loadConfig, openMirrorOrExit } from '../job-setup.js';
import { isMirrorBusy, mirrorBusyExit } from '../mirror-busy.js';

/**
 * The body of `cardsync findings list`: the open findings (all with `--all`), in the order of the
 * report files (most serious first).
 */
export async function listFindingsAction(io: CliIo, flags: ListFindingsFlags): Promise<void> {
  // Only reads: a mirror this user may read but not write (an auditor's copy) will do.
  await withMirror(io, flags, { writable: false }, (db) => {
    const rows = listFindings(db, { includeResolved: flags.all }).sort(compareFindings);
    io.stdout(flags.json ? `${JSON.stringify(rows)}\n` : formatList(rows, Date.now()));
  });
}

/** The body of `cardsync findings ack`: acknowledge one finding until a later instant. */
export async function ackFindingAction(
  io: CliIo,
  fingerprint: string,
  flags: AckFindingFlags,
): Promise<void> {
  if (flags.reason.trim() === '') throw new UsageError('--reason: expected a reason, got ""');
  const until = instant('--until', flags.until);
  const now = new Date().toISOString();
  if (until <= now) throw new UsageError(`--until: expected an instant after now, got ${until}`);
  await withMirror(io, flags, {}, (db) => {
    let acked: StoredFinding;
    try {
      acked = ackFinding(db, fingerprint, { reason: flags.reason, until, now });
    } catch (error) {
      if (error instanceof FindingsError && error.field)
        throw new UsageError(`--${error.field}: ${error.message}`);
      if (error instanceof FindingsError) throw new UsageError(`FINGERPRINT: ${error.message}`);
      throw error;
    }
    io.stdout(
      flags.json
        ? `${JSON.stringify(acked)}\n`
        : `acknowledged ${acked.fingerprint} (${acked.check}) until ${until}\n`,
    );
  });
}

async function withMirror(
  io: CliIo,
  flags: MirrorFlags,
  options: Parameters<typeof openMirrorOrExit>[2],
  work: (db: ReturnType<typeof openMirrorOrExit>['db']) => void,
): Promise<void> {
  const config = await loadConfig(io, { config: flags.config, db: flags.db }, false);
  if (!existsSync(config.db))
    throw new UsageError(`${config.origins.db}: no mirror at ${config.db}`, {
      code: 'MIRROR_MISSING',
    });
  const mirror = openMirrorOrExit(config.db, config.origins.db, options);
  try {
    work(mirror.db);
  } catch (error) {
    throw isMirrorBusy(error) ? mirrorBusyExit(error) : error;
  } finally {
    await mirror.close();
  }
}

function instant(flag: string, text: string): string {
  try {
    return parseInstant(flag, text);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

function formatList(rows: readonly StoredFinding[], now: number): string {
  if (rows.length === 0) return 'no findings\n';
  const lines = rows.map((f) => {
    const state = stateText(f, now);
    const ids = (
      ['cardId', 'transactionId', 'orderNo', 'tradeNo', 'snapshotAt', 'offeringId'] as const
    )
      .filter((key) => f[key] !== null)
      .map((key) => `${key}=${f[key]}`)
      .join(' ');
    const values =
      f.expected === null && f.actual === null ? '' : `  expected ${f.expected} actual ${f.actual}`;
    return `${f.fingerprint}  ${f.severity.padEnd(7)} ${f.check.padEnd(25)} ${state.padEnd(10)}  ${f.merchantId} ${ids}${values}\n    ${f.detail}`;
  });
  return `${lines.join('\n')}\n`;
}

/**
 * A finding's state as `open_findings` gives it: an acknowledgement whose expiry has passed no
 * longer holds (the next reconciliation lifts it and reports the finding again), so it is not
 * shown as one.
 */
function stateText(f: StoredFinding, now: number): string {
  if (!f.acknowledgement) return f.state;
  const { until } = f.acknowledgement;
  return Date.parse(until) <= now
    ? `${f.state} (acknowledgement expired ${until})`
    : `acknowledged until ${until}`;
}
