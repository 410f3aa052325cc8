import { type Command, Option } from 'commander';
import type { ConfigFlags } from '../config/index.js';
import type { FailOn } from './job-exit.js';

/** The flags of the commands that reconcile (`reconcile`, `run`, `schedule`), as commander gives them. */
export interface ReconFlags {
  reportsDir?: string;
  metricsFile?: string;
  graceMinutes?: string;
  staleAfterHours?: string;
  quietSeconds?: string;
  tolerance: string[];
  check: string[];
  depositFeeRounding?: string;
  failOn?: FailOn;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Add the reconciliation's options: where reports and metrics go, the check settings, `--fail-on`. */
export function addReconOptions(command: Command): Command {
  return command
    .option(
      '--reports-dir <dir>',
      'where report folders go (CARDSYNC_REPORTS_DIR; default ./reports)',
    )
    .option(
      '--metrics-file <file>',
      'Prometheus textfile written after each run (CARDSYNC_METRICS_FILE; default none)',
    )
    .option(
      '--grace-minutes <n>',
      'how long an accepted order may lack its outcome (CARDSYNC_RECON_GRACE_MINUTES; default 60)',
    )
    .option(
      '--stale-after-hours <n>',
      'when a PENDING transaction is stale (CARDSYNC_RECON_STALE_AFTER_HOURS; default 168)',
    )
    .option(
      '--quiet-seconds <n>',
      'MERCHANT_BALANCE_MISMATCH skips snapshots this close to an order (CARDSYNC_RECON_QUIET_SECONDS; default 120)',
    )
    .option(
      '--tolerance <CODE=N>',
      'allow differences up to N minor units for a check; repeatable (CARDSYNC_RECON_TOLERANCES)',
      collect,
      [],
    )
    .option(
      '--check <CODE=on|off>',
      'turn a check on or off; repeatable (CARDSYNC_RECON_CHECKS)',
      collect,
      [],
    )
    .option(
      '--deposit-fee-rounding <mode>',
      'half-up, half-even, down or up (CARDSYNC_RECON_DEPOSIT_FEE_ROUNDING; default half-up)',
    )
    .addOption(
      new Option(
        '--fail-on <severity>',
        'exit 6 when unacknowledged findings at or above this severity exist',
      ).choices(['error', 'warning']),
    );
}

/** The configuration flags among {@link ReconFlags}. */
export function reconConfigFlags(flags: ReconFlags): ConfigFlags {
  const { failOn: _failOn, tolerance, check, ...text } = flags;
  return { ...definedOnly(text), tolerance, check };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
