import { ConfigError } from './config-error.js';
import { parseInstant } from './iso-instant.js';
import type { ConfigFlags, SyncSettings } from './job-config.js';

/** A whole-number setting's range and default. */
export interface IntegerBounds {
  readonly min: number;
  readonly max: number;
  readonly default: number;
}

type IntegerSetting = 'concurrency' | 'lookbackHours' | 'safetyLagSeconds' | 'maxPagesPerWindow';

/** Ranges and defaults of the whole-number sync settings, shared by the flags and the file. */
export const SYNC_BOUNDS: Readonly<Record<IntegerSetting, IntegerBounds>> = {
  concurrency: { min: 1, max: 64, default: 8 },
  lookbackHours: { min: 0, max: 2160, default: 72 },
  safetyLagSeconds: { min: 0, max: 86_400, default: 60 },
  maxPagesPerWindow: { min: 2, max: 1000, default: 20 },
};

/** What a config file's `sync` section holds, already checked against the schema. */
export type SyncSection = Partial<Omit<SyncSettings, 'since'>> & { readonly since?: string };

/** The flags that set sync settings, with the name each goes by on the command line. */
const FLAG_NAMES = {
  concurrency: '--concurrency',
  lookbackHours: '--lookback-hours',
  safetyLagSeconds: '--safety-lag-seconds',
} as const;

function wholeNumber(key: string, text: string, bounds: IntegerBounds): number {
  const value = Number(text);
  if (!/^\d{1,9}$/.test(text) || value < bounds.min || value > bounds.max) {
    throw new ConfigError(
      key,
      `expected a whole number from ${bounds.min} to ${bounds.max}, got ${JSON.stringify(text.slice(0, 40))}`,
    );
  }
  return value;
}

/** The earliest `since`: 0001-01-01T00:00:00Z (Date.UTC maps year 1 to 1901, hence the setter). */
const EARLIEST_SINCE = new Date(0).setUTCFullYear(1, 0, 1);

/**
 * Where a first sync starts: an ISO instant from year 1 that is not after `now` (ms). One in the
 * future is a mistake (a wrong year, a date read the other way round): nothing would be synced.
 */
function sinceSetting(key: string, text: string, now: number): string {
  const since = parseInstant(key, text);
  // The window queries widen their range by 1 ms: from year 0 that reads -000001-12-31T...,
  // which the wire's four-digit year cannot carry, and the upstream refuses it on every run.
  if (Date.parse(since) < EARLIEST_SINCE) {
    throw new ConfigError(key, `expected an instant from 0001-01-01T00:00:00Z on, got ${since}`);
  }
  if (Date.parse(since) > now) {
    throw new ConfigError(
      key,
      `expected an instant that is not in the future, got ${since} (now is ${new Date(now).toISOString()})`,
    );
  }
  return since;
}

/**
 * Sync settings: a flag over the config file's `sync` section over the default. The file's
 * numbers were range-checked by its schema; its `since` is checked here like the flag's, and
 * neither may be after `now` (ms, the wall clock).
 *
 * @example
 * resolveSyncSettings({ concurrency: '4' }, { lookbackHours: 24 }, Date.now());
 * // { concurrency: 4, lookbackHours: 24, safetyLagSeconds: 60, maxPagesPerWindow: 20 }
 * @throws ConfigError naming the flag or `sync.since`.
 */
export function resolveSyncSettings(
  flags: ConfigFlags,
  file: SyncSection,
  now: number,
): SyncSettings {
  const fromFlag = (name: keyof typeof FLAG_NAMES): number | undefined => {
    const text = flags[name];
    return text === undefined ? undefined : wholeNumber(FLAG_NAMES[name], text, SYNC_BOUNDS[name]);
  };
  const setting = (name: IntegerSetting, flagged?: number): number =>
    flagged ?? file[name] ?? SYNC_BOUNDS[name].default;
  const since =
    flags.since !== undefined
      ? sinceSetting('--since', flags.since, now)
      : file.since !== undefined
        ? sinceSetting('sync.since', file.since, now)
        : undefined;
  return {
    concurrency: setting('concurrency', fromFlag('concurrency')),
    lookbackHours: setting('lookbackHours', fromFlag('lookbackHours')),
    safetyLagSeconds: setting('safetyLagSeconds', fromFlag('safetyLagSeconds')),
    ...(since === undefined ? {} : { since }),
    maxPagesPerWindow: setting('maxPagesPerWindow'),
  };
}
