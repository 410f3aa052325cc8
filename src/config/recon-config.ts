import {
  type ReconSettings,
  type ReconSettingsInput,
  reconSettings,
} from '../recon/recon-settings.js';
import { ReconSettingsError } from '../recon/recon-settings-error.js';
import { ConfigError } from './config-error.js';
import type { ConfigFlags } from './job-config.js';
import type { IntegerBounds } from './sync-settings.js';

type ReconInteger = 'graceMinutes' | 'staleAfterHours' | 'quietSeconds' | 'tolerance';

/** Ranges of the whole-number reconciliation settings, shared by flags, variables and the file. */
export const RECON_BOUNDS: Readonly<Record<ReconInteger, IntegerBounds>> = {
  graceMinutes: { min: 0, max: 43_200, default: 60 },
  staleAfterHours: { min: 0, max: 8_760, default: 168 },
  quietSeconds: { min: 0, max: 86_400, default: 120 },
  tolerance: { min: 0, max: 1_000_000_000, default: 0 },
};

/** What a config file's `recon` section holds, already checked against the schema. */
export interface ReconSection {
  readonly graceMinutes?: number;
  readonly staleAfterHours?: number;
  readonly quietSeconds?: number;
  readonly tolerances?: Readonly<Record<string, number>>;
  readonly depositFeeRounding?: string;
  readonly checks?: Readonly<Record<string, boolean>>;
}

/** The environment variables of the reconciliation settings. */
export const RECON_VARIABLES = {
  graceMinutes: 'CARDSYNC_RECON_GRACE_MINUTES',
  staleAfterHours: 'CARDSYNC_RECON_STALE_AFTER_HOURS',
  quietSeconds: 'CARDSYNC_RECON_QUIET_SECONDS',
  tolerances: 'CARDSYNC_RECON_TOLERANCES',
  checks: 'CARDSYNC_RECON_CHECKS',
  depositFeeRounding: 'CARDSYNC_RECON_DEPOSIT_FEE_ROUNDING',
} as const;

type SettingName =
  | 'graceMs'
  | 'staleAfterMs'
  | 'quietMs'
  | 'depositFeeRounding'
  | 'tolerances'
  | 'checks';

/** One source of settings, and the name each of its settings goes by there. */
interface Layer {
  readonly input: ReconSettingsInput;
  readonly names: Readonly<Record<SettingName, string>>;
  /** True for the config file, whose keys name the check too (`recon.checks.NOPE`). */
  readonly nested: boolean;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

/**
 * The reconciliation's settings: flags over environment variables over the config file's
 * `recon` section over the defaults of reference-model.md section 6. Tolerances and checks
 * merge per check code, so a flag can turn one check off without repeating the file's list.
 *
 * @example
 * resolveReconSettings({ graceMinutes: '120', check: ['UNJOURNALED_CARD=off'] }, env, { staleAfterHours: 48 });
 * @throws ConfigError naming the flag, variable or file key that is wrong.
 */
export function resolveReconSettings(
  flags: ConfigFlags,
  env: Readonly<Record<string, string | undefined>>,
  file: ReconSection = {},
): ReconSettings {
  const layers = [fileLayer(file), envLayer(env), flagLayer(flags)];
  for (const layer of layers) validate(layer);
  const merged: {
    graceMs?: number;
    staleAfterMs?: number;
    quietMs?: number;
    depositFeeRounding?: string;
    tolerances: Record<string, number>;
    checks: Record<string, boolean>;
  } = { tolerances: {}, checks: {} };
  for (const { input } of layers) {
    if (input.graceMs !== undefined) merged.graceMs = input.graceMs;
    if (input.staleAfterMs !== undefined) merged.staleAfterMs = input.staleAfterMs;
    if (input.quietMs !== undefined) merged.quietMs = input.quietMs;
    if (input.depositFeeRounding !== undefined)
      merged.depositFeeRounding = input.depositFeeRounding;
    Object.assign(merged.tolerances, input.tolerances);
    Object.assign(merged.checks, input.checks);
  }
  return reconSettings(merged);
}

/** Each layer alone, so an unknown check code or rounding mode is named where it was written. */
function validate(layer: Layer): void {
  try {
    reconSettings(layer.input);
  } catch (error) {
    if (!(error instanceof ReconSettingsError)) throw error;
    // The error's key is the setting's (`graceMs`, `checks.NOPE`); say it as the layer does.
    const [setting = '', ...code] = error.key.split('.');
    const name = layer.names[setting as SettingName] ?? error.key;
    const key = layer.nested && code.length > 0 ? `${name}.${code.join('.')}` : name;
    throw new ConfigError(key, error.message.slice(error.key.length + 2));
  }
}

function fileLayer(file: ReconSection): Layer {
  return {
    input: {
      ...(file.graceMinutes === undefined ? {} : { graceMs: file.graceMinutes * MINUTE }),
      ...(file.staleAfterHours === undefined ? {} : { staleAfterMs: file.staleAfterHours * HOUR }),
      ...(file.quietSeconds === undefined ? {} : { quietMs: file.quietSeconds * 1000 }),
      ...(file.depositFeeRounding === undefined
        ? {}
        : { depositFeeRounding: file.depositFeeRounding }),
      ...(file.tolerances === undefined ? {} : { tolerances: file.tolerances }),
      ...(file.checks === undefined ? {} : { checks: file.checks }),
    },
    names: {
      graceMs: 'recon.graceMinutes',
      staleAfterMs: 'recon.staleAfterHours',
      quietMs: 'recon.quietSeconds',
      depositFeeRounding: 'recon.depositFeeRounding',
      tolerances: 'recon.tolerances',
      checks: 'recon.checks',
    },
    nested: true,
  };
}

function envLayer(env: Readonly<Record<string, string | undefined>>): Layer {
  const read = (name: string) => (env[name] === '' ? undefined : env[name]);
  const v = RECON_VARIABLES;
  return textLayer(
    {
      graceMinutes: read(v.graceMinutes),
      staleAfterHours: read(v.staleAfterHours),
      quietSeconds: read(v.quietSeconds),
      depositFeeRounding: read(v.depositFeeRounding),
      tolerance: read(v.tolerances)?.split(','),
      check: read(v.checks)?.split(','),
    },
    'skip',
    {
      graceMs: v.graceMinutes,
      staleAfterMs: v.staleAfterHours,
      quietMs: v.quietSeconds,
      depositFeeRounding: v.depositFeeRounding,
      tolerances: v.tolerances,
      checks: v.checks,
    },
  );
}

function flagLayer(flags: ConfigFlags): Layer {
  return textLayer(flags, 'refuse', {
    graceMs: '--grace-minutes',
    staleAfterMs: '--stale-after-hours',
    quietMs: '--quiet-seconds',
    depositFeeRounding: '--deposit-fee-rounding',
    tolerances: '--tolerance',
    checks: '--check',
  });
}

/**
 * Settings written as text (flags, variables), parsed and named after where they were written.
 * An empty item is skipped in a variable's list (`A=1,`) and refused as a flag (`--check ""`,
 * an unset shell variable), as any other empty flag is.
 */
function textLayer(
  text: Pick<
    ConfigFlags,
    | 'graceMinutes'
    | 'staleAfterHours'
    | 'quietSeconds'
    | 'depositFeeRounding'
    | 'tolerance'
    | 'check'
  >,
  emptyItems: 'skip' | 'refuse',
  names: Layer['names'],
): Layer {
  const scaled = (value: string | undefined, key: string, bounds: IntegerBounds, unit: number) =>
    value === undefined ? undefined : wholeNumber(key, value, bounds) * unit;
  const graceMs = scaled(text.graceMinutes, names.graceMs, RECON_BOUNDS.graceMinutes, MINUTE);
  const staleAfterMs = scaled(
    text.staleAfterHours,
    names.staleAfterMs,
    RECON_BOUNDS.staleAfterHours,
    HOUR,
  );
  const quietMs = scaled(text.quietSeconds, names.quietMs, RECON_BOUNDS.quietSeconds, 1000);
  const tolerances: Record<string, number> = {};
  for (const [code, value] of pairs(
    names.tolerances,
    text.tolerance,
    'CODE=N (minor units)',
    emptyItems,
  ))
    tolerances[code] = wholeNumber(names.tolerances, value, RECON_BOUNDS.tolerance);
  const checks: Record<string, boolean> = {};
  for (const [code, value] of pairs(names.checks, text.check, 'CODE=on or CODE=off', emptyItems)) {
    const on = SWITCH[value.toLowerCase()];
    if (on === undefined)
      throw new ConfigError(names.checks, `expected CODE=on or CODE=off, got ${quote(value)}`);
    checks[code] = on;
  }
  return {
    input: {
      ...(graceMs === undefined ? {} : { graceMs }),
      ...(staleAfterMs === undefined ? {} : { staleAfterMs }),
      ...(quietMs === undefined ? {} : { quietMs }),
      ...(text.depositFeeRounding === undefined
        ? {}
        : { depositFeeRounding: text.depositFeeRounding }),
      tolerances,
      checks,
    },
    names,
    nested: false,
  };
}

const SWITCH: Readonly<Record<string, boolean>> = {
  on: true,
  off: false,
  true: true,
  false: false,
};

/**
 * `CODE=value` items (check codes upper-cased), each refused with `key` when malformed, and a
 * code given twice refused too: which of `OVER_REFUND=5,OVER_REFUND=50` was meant is no guess
 * to make, as the config file refuses a key given twice rather than keep the last.
 */
function pairs(
  key: string,
  items: readonly string[] | undefined,
  expected: string,
  emptyItems: 'skip' | 'refuse',
): [string, string][] {
  const seen = new Set<string>();
  return (items ?? [])
    .map((item) => item.trim())
    .filter((item) => item !== '' || emptyItems === 'refuse')
    .map((item) => {
      const match = /^([A-Za-z_]+)=(.*)$/.exec(item);
      if (!match) throw new ConfigError(key, `expected ${expected}, got ${quote(item)}`);
      const [, given = '', value = ''] = match;
      const code = given.toUpperCase();
      if (seen.has(code))
        throw new ConfigError(key, `expected each check code once, got ${code.slice(0, 60)} again`);
      seen.add(code);
      return [code, value.trim()];
    });
}

function wholeNumber(key: string, text: string, bounds: IntegerBounds): number {
  const value = Number(text);
  if (!/^\d{1,10}$/.test(text) || value < bounds.min || value > bounds.max)
    throw new ConfigError(
      key,
      `expected a whole number from ${bounds.min} to ${bounds.max}, got ${quote(text)}`,
    );
  return value;
}

function quote(text: string): string {
  return JSON.stringify(text.slice(0, 60));
}
